/** Formats a date as nanobot's history timestamp `YYYY-MM-DD HH:MM` (local time). */
export function formatHistoryTimestamp(date: Date): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * Our instruction for an archive request, sent as the user turn after the ordinary replay prefix.
 * `{count}` is replaced by the number of visible messages to summarise.
 */
export const DEFAULT_ARCHIVE_INSTRUCTION = `Write a memory overview of only the final {count} conversation messages immediately before this instruction. Everything earlier is context: do not summarise it.

Keep a fact only when it passes all four checks:
- Signal: the user said or confirmed it, or a tool result established it.
- Novel: it is not already in the system prompt, its memory or its Recent History.
- Important: it would change how you help this user later.
- Persistent: it is likely to still be true next week (unless marked ephemeral).

Write one line per fact, most important first, as "- [mark] fact", with mark one of:
[permanent] identity, stable preferences, long-lived facts; [durable] projects, plans, decisions;
[ephemeral] short-lived state worth a brief note; [correction] replaces an earlier wrong fact;
[skip] only noise (use it rather than inventing facts).

Reply with the fact lines only. If nothing qualifies, reply with exactly: (nothing)`;

/** Fills `{count}` in an archive instruction. */
export function renderArchiveInstruction(template: string, count: number): string {
  return template.replaceAll('{count}', String(count));
}

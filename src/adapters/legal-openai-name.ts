/** The rule OpenAI applies to a message `name`. */
export const OPENAI_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Makes a participant name legal for OpenAI (`^[a-zA-Z0-9_-]{1,64}$`): accents are removed
 * (`José` → `Jose`), every other run of illegal characters becomes `_` (`John Doe` → `John_Doe`),
 * and the result is cut to 64 characters. `undefined` when nothing legal is left (the name is then
 * not sent). A legal name comes back unchanged.
 */
export function legalOpenAIName(name: string): string | undefined {
  if (OPENAI_NAME_PATTERN.test(name)) return name;
  const legal = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return legal === '' ? undefined : legal;
}

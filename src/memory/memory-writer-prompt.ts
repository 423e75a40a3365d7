/** Our instruction for the memory writer (nanobot's Dream, simplified to one MEMORY.md rewrite). */
export const DEFAULT_MEMORY_WRITER_PROMPT = `You maintain the long-term memory file memory/MEMORY.md of a personal assistant.

Below are the current memory files and new conversation history entries (consolidation notes, oldest first). Update MEMORY.md with what the entries teach:
- Keep it organised by topic, one fact per bullet, no duplicates; merge related facts.
- Honour the marks in the entries: never save [skip] lines; a [correction] replaces the fact it corrects in place; [ephemeral] facts are dropped once they are stale. Do not copy the marks into the file.
- Remove facts that are contradicted or clearly outdated; keep everything else that is still true.
- SOUL.md and USER.md are shown for context only; do not repeat their content in MEMORY.md.

Reply with the complete new content of memory/MEMORY.md and nothing else (no explanations, no code fences).`;

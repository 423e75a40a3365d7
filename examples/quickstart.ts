import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContextBuilder, msg } from 'ctxloom';

// A workspace of its own, so the example runs from any folder.
const workspace = await mkdtemp(join(tmpdir(), 'ctxloom-quickstart-'));
await writeFile(join(workspace, 'AGENTS.md'), '# Rules\n\n- Run the tests before every commit.\n');

const builder = ContextBuilder.forChat({
  systemPrompt: 'You are a careful coding assistant.',
  maxMessages: 20,
  maxInputTokens: 8_000,
  workspace,
  runtimePrompt: { includeBootstrapFiles: true },
});

const history = [
  msg.user('Why is the footnote test failing?'),
  msg.assistant('', { toolCalls: [{ id: 'call_1', name: 'run_tests', arguments: '{"pattern":"footnote"}' }] }),
  msg.tool('1 failed: ids now start with user-content-', { toolCallId: 'call_1', name: 'run_tests' }),
  msg.assistant('remark-rehype 11 prefixes footnote ids; pass clobberPrefix to keep them.'),
];

const { messages, trace } = await builder.build({ history, current: 'Apply the fix.' });
for (const row of trace.sections) process.stdout.write(`${row.section}: ${row.messages} messages, ${row.tokens} tokens\n`);
process.stdout.write(`${messages.length} messages, ${trace.totalTokens} tokens\n`);

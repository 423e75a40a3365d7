/**
 * Deterministic generated text for the token counters' differential tests, the estimator's fitting
 * script and the benchmark: English prose (markdown included), code, JSON, Chinese (with the English
 * terms and numbers real Chinese technical text carries) and a mixed class that exercises every
 * branch of the o200k pre-tokenizer (emoji sequences, combining marks, other scripts, unusual
 * whitespace, astral letters and digits, byte-order marks, lone surrogates). The same seed always
 * gives the same text.
 *
 * Over 150 lines because it holds the word lists it draws from.
 * @internal
 */

/** The content classes of the corpus. */
export type CorpusClass = 'english' | 'code' | 'json' | 'chinese' | 'mixed';

/** Every class, in a fixed order. */
export const CORPUS_CLASSES: readonly CorpusClass[] = ['english', 'code', 'json', 'chinese', 'mixed'];

/** Options for {@link generateCorpusDocuments}. */
export type CorpusOptions = {
  readonly corpusClass: CorpusClass;
  /** Seeds the generator: the same seed gives the same documents. */
  readonly seed: number;
  /** The number of documents. */
  readonly count: number;
  /** Each document has about this many characters or more. @default 200 */
  readonly minChars?: number;
  /** …and fewer than this many (the length is drawn log-uniformly). @default 4000 */
  readonly maxChars?: number;
};

/** Generates `count` documents of one class. */
export function generateCorpusDocuments(options: CorpusOptions): string[] {
  const random = mulberry32(options.seed);
  const min = options.minChars ?? 200;
  const max = options.maxChars ?? 4000;
  const write = WRITERS[options.corpusClass];
  const documents: string[] = [];
  for (let index = 0; index < options.count; index += 1) {
    const target = Math.round(min * (max / min) ** random());
    let text = '';
    while (text.length < target) text += write(random);
    documents.push(text);
  }
  return documents;
}

/** A mixed corpus of at least `bytes` UTF-8 bytes: documents of every class in turn. */
export function generateMixedCorpus(options: { readonly seed: number; readonly bytes: number }): string[] {
  const documents: string[] = [];
  let bytes = 0;
  for (let round = 0; bytes < options.bytes; round += 1) {
    for (const corpusClass of CORPUS_CLASSES) {
      const [text = ''] = generateCorpusDocuments({
        corpusClass,
        seed: options.seed * 7919 + round,
        count: 1,
      });
      documents.push(text);
      bytes += Buffer.byteLength(text);
    }
  }
  return documents;
}

type Random = () => number;

function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), state | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const chance = (random: Random, probability: number): boolean => random() < probability;
const integer = (random: Random, below: number): number => Math.floor(random() * below);

const ENGLISH = (
  'the of and to a in is it you that he was for on are with as his they be at one have this from or had by ' +
  'word but what some we can out other were all there when up use your how said an each she which do their ' +
  'time if will way about many then them write would like so these her long make thing see him two has look ' +
  'more day could go come did number sound no most people my over know water than call first who may down side ' +
  'been now find any new work part take get place made live where after back little only round man year came ' +
  'show every good me give our under name very through just form sentence great think say help low line differ ' +
  'turn cause much mean before move right boy old too same tell does set three want air well also play small end ' +
  'put home read hand port large spell add even land here must big high such follow act why ask men change went ' +
  'light kind off need house picture try us again animal point mother world near build self earth father head ' +
  'context window budget token message history session agent model request response summary memory compaction ' +
  'workspace provider filter pipeline trace decision section system assistant tool result schema transaction ' +
  'configuration deployment repository benchmark throughput latency allocation serialization asynchronous ' +
  'infrastructure authentication authorization middleware observability reproducibility deterministic ' +
  'incrementally approximately characteristic internationalization straightforward nevertheless ' +
  'retrieval embeddings vector database cluster kubernetes container orchestration pagination ' +
  'should would could about between because through during without within against around another ' +
  'example install package version default option value return function object string number array ' +
  'support feature release update issue problem question answer user client server file folder path ' +
  'run build test check start stop open close read write send receive create delete list show hide ' +
  'important different possible available following previous current simple quickly usually really'
).split(' ');
const SYLLABLES = 'ka lo mi tra ven quo zer pli dax ful ion ment ing ous ble cre sta gro nic phy lex'.split(
  ' ',
);

/** A rare word (a name, jargon, a typo) that the vocabulary splits into several tokens. */
const rareWord = (random: Random): string =>
  Array.from({ length: 2 + integer(random, 3) }, () => pick(random, SYLLABLES)).join('');
const NAMES =
  'Alice Bob Carol OpenAI Anthropic GitHub TypeScript Node PostgreSQL Redis London Tuesday March'.split(' ');
const CONTRACTIONS = "don't it's we'll they're I've she'd you're can't won't IT'S WE'LL isn't".split(' ');

function englishWord(random: Random): string {
  const roll = random();
  if (roll < 0.05) return pick(random, NAMES);
  if (roll < 0.08) return pick(random, CONTRACTIONS);
  if (roll < 0.11) return String(integer(random, chance(random, 0.5) ? 100 : 100_000));
  if (roll < 0.13) return `(${pick(random, ENGLISH)})`;
  if (roll < 0.14) return `\`${identifier(random)}\``;
  if (roll < 0.2) return rareWord(random);
  if (roll < 0.21)
    return `[${pick(random, ENGLISH)}](https://github.com/${pick(random, ENGLISH)}/${rareWord(random)})`;
  if (roll < 0.22) return `**${pick(random, ENGLISH)}**`;
  return pick(random, ENGLISH);
}

function englishSentence(random: Random): string {
  const words: string[] = [];
  for (let index = 0, length = 4 + integer(random, 18); index < length; index += 1) {
    words.push(englishWord(random));
    if (chance(random, 0.08)) words.push(pick(random, [',', ';', ' -', ':']));
  }
  const sentence = words.join(' ').replace(/ ([,;:])/g, '$1');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}${pick(random, ['.', '.', '.', '?', '!'])}`;
}

function writeEnglish(random: Random): string {
  const roll = random();
  if (roll < 0.08)
    return `\n\n${'#'.repeat(1 + integer(random, 3))} ${englishSentence(random).slice(0, -1)}\n\n`;
  if (roll < 0.16) return `\n${pick(random, ['-', '*', '1.'])} ${englishSentence(random)}`;
  if (roll < 0.18) return ` See https://example.com/${pick(random, ENGLISH)}/${integer(random, 999)}.`;
  if (roll < 0.2)
    return `\n\n| ${pick(random, ENGLISH)} | ${pick(random, ENGLISH)} |\n| --- | --- |\n| \`${identifier(random)}\` | ${englishSentence(random)} |\n`;
  if (roll < 0.22) return `\n\n\`\`\`ts${writeCode(random)}\`\`\`\n\n`;
  if (roll < 0.23) return `\n\n${pick(random, ['---', '***', '==='])}\n\n`;
  return ` ${englishSentence(random)}${chance(random, 0.1) ? '\n\n' : ''}`;
}

const identifier = (random: Random): string => {
  const parts = [
    pick(random, ENGLISH),
    pick(random, ENGLISH),
    ...(chance(random, 0.4) ? [pick(random, ENGLISH)] : []),
  ];
  const style = random();
  if (style < 0.45) return parts.map((part, index) => (index === 0 ? part : capitalise(part))).join('');
  if (style < 0.75) return parts.join('_');
  if (style < 0.9) return parts.map(capitalise).join('');
  return parts.join('_').toUpperCase();
};
const capitalise = (word: string): string => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;

function writeCode(random: Random): string {
  const indent = pick(random, ['  ', '    ', '\t']);
  const name = identifier(random);
  const argument = identifier(random);
  const body = [
    `${indent}const ${identifier(random)} = ${argument}.${identifier(random)}(${integer(random, 1000)});`,
    `${indent}if (${argument} === null || ${argument}.length > ${integer(random, 64)}) {`,
    `${indent}${indent}throw new Error(\`${englishSentence(random)} \${${argument}}\`);`,
    `${indent}}`,
    `${indent}// ${englishSentence(random)}`,
    `${indent}for (let index = 0; index < ${argument}.length; index += 1) total += ${argument}[index] * 0x${integer(random, 65536).toString(16)};`,
    `${indent}return { ${identifier(random)}: ${argument}, ${identifier(random)}: '${pick(random, ENGLISH)}' };`,
  ];
  const lines = body.filter(() => chance(random, 0.7));
  const roll = random();
  if (roll < 0.06)
    return `\n/${'*'.repeat(20 + integer(random, 60))}\n * ${englishSentence(random)}\n ${'*'.repeat(30)}/\n`;
  if (roll < 0.12) return `\n// ${pick(random, ['-', '=', '#', '/']).repeat(10 + integer(random, 70))}\n`;
  if (roll < 0.2)
    return `\nimport { ${identifier(random)}, ${identifier(random)} } from '${pick(random, ['./', '../', '@scope/'])}${pick(random, ENGLISH)}-${pick(random, ENGLISH)}.js';`;
  if (roll < 0.27)
    return `\n${indent}/**\n${indent} * ${englishSentence(random)}\n${indent} * @param ${argument} ${englishSentence(random)}\n${indent} */`;
  if (roll < 0.3)
    return `\n${indent}${indent}${indent}const pattern = /^(?:[a-z]+|\\d{${integer(random, 9)}})\\s*$/i;`;
  if (roll < 0.36) return nestedCall(random, { indent: '  ', depth: 3 + integer(random, 5) });
  if (roll < 0.42) return minified(random);
  if (roll < 0.5) {
    return `\ndef ${name.toLowerCase()}(${argument.toLowerCase()}, *args, **kwargs):\n    """${englishSentence(random)}"""\n    return [x ** 2 for x in ${argument.toLowerCase()} if x % ${integer(random, 9) + 2} == 0]\n`;
  }
  return `\nexport function ${name}(${argument}: ${capitalise(pick(random, ENGLISH))}[]): number {\n${lines.join('\n')}\n}\n`;
}

/** Compiled or generated code: calls and object literals nested `depth` deep, two spaces a level. */
function nestedCall(random: Random, at: { readonly indent: string; readonly depth: number }): string {
  const module = `import_${identifier(random).toLowerCase()}${integer(random, 9)}`;
  const lines: string[] = [];
  const open = (level: number): void => {
    const pad = at.indent.repeat(level);
    lines.push(`${pad}${identifier(random)}: ${module}.${pick(random, ['object', 'array', 'union'])}({`);
    for (let field = 0, fields = 1 + integer(random, 3); field < fields; field += 1) {
      const inner = at.indent.repeat(level + 1);
      if (level + 1 < at.depth && chance(random, 0.3)) open(level + 1);
      else
        lines.push(
          `${inner}${identifier(random)}_${pick(random, ENGLISH)}: ${module}.${pick(random, ['string', 'number', 'literal', 'boolean'])}(${chance(random, 0.4) ? `"${pick(random, ENGLISH)}_${pick(random, ENGLISH)}"` : ''})${chance(random, 0.3) ? '.nullish()' : ''},`,
        );
    }
    lines.push(`${pad}}),`);
  };
  open(Math.max(1, at.depth - 2));
  return `\n${lines.join('\n')}`;
}

/** A minified line: short names, no spaces, `!0` and `!1`. */
function minified(random: Random): string {
  const short = () =>
    `${pick(random, ['a', 'e', 't', 'r', 'n', 'o', 's', 'i'])}${chance(random, 0.5) ? integer(random, 9) : ''}`;
  const parts: string[] = [];
  for (let index = 0, count = 8 + integer(random, 16); index < count; index += 1) {
    const roll = random();
    if (roll < 0.3) parts.push(`var ${short()}=${short()}.${identifier(random)}`);
    else if (roll < 0.5)
      parts.push(`${short()}(${short()},"${pick(random, ENGLISH)}",{value:${short()},configurable:!0})`);
    else if (roll < 0.7)
      parts.push(`{id:${integer(random, 200_000)},content:"${pick(random, ENGLISH)}",lstrip:!1,special:!0}`);
    else
      parts.push(
        `function ${short()}(${short()},${short()}){return ${short()}&&${short()}[${integer(random, 99)}]||null}`,
      );
  }
  return `\n${parts.join(';')};`;
}

function jsonValue(random: Random, depth: number): unknown {
  const roll = random();
  if (depth < 3 && roll < 0.25) {
    const value: Record<string, unknown> = {};
    for (let index = 0, size = 1 + integer(random, 6); index < size; index += 1)
      value[identifier(random)] = jsonValue(random, depth + 1);
    return value;
  }
  if (depth < 3 && roll < 0.35)
    return Array.from({ length: integer(random, 5) }, () => jsonValue(random, depth + 1));
  if (roll < 0.5) return integer(random, 1_000_000);
  if (roll < 0.55) return Math.round(random() * 1e6) / 1e3;
  if (roll < 0.6) return pick(random, [true, false, null]);
  if (roll < 0.65)
    return `${integer(random, 0xffffffff).toString(16)}-${integer(random, 0xffff).toString(16)}`;
  if (roll < 0.7)
    return `2026-0${1 + integer(random, 9)}-1${integer(random, 9)}T0${integer(random, 9)}:30:00Z`;
  if (roll < 0.85) return englishSentence(random);
  return pick(random, ENGLISH);
}

function writeJson(random: Random): string {
  const value = {
    [identifier(random)]: jsonValue(random, 0),
    id: integer(random, 1e9),
    ok: chance(random, 0.5),
  };
  return `${JSON.stringify(value, null, chance(random, 0.6) ? 2 : undefined)}\n`;
}

const CHINESE = (
  '我们 今天 天气 很好 公园 散步 人工智能 正在 改变 世界 大型 语言 模型 上下文 管理 非常 重要 系统 用户 ' +
  '助手 工具 调用 结果 会话 历史 记忆 压缩 预算 令牌 数量 计算 性能 测试 数据 文件 目录 配置 部署 服务器 ' +
  '开发者 代码 函数 参数 返回 错误 问题 解决 方案 需要 可以 已经 因为 所以 但是 如果 然后 这个 那个 一个 ' +
  '没有 不是 就是 还是 或者 以及 通过 使用 进行 实现 支持 提供 包括 所有 每个 时候 时间 地方 中国 北京 ' +
  '上海 学习 工作 生活 朋友 家人 孩子 老师 学生 医生 公司 市场 经济 社会 文化 历史 科学 技术 研究 发展 ' +
  '的 了 是 在 和 有 也 不 都 就 要 会 对 把 被 从 向 给 让 很 最 更 又 再 才 只 还 已 正 将 之 其 此 ' +
  '龘 鑫 犇 淼 燚 垚 赟 喆 昇 旸 珺 璟 瑀 玥 琇 骉 羴 蠡 鬻 黉'
).split(' ');
const CHINESE_PUNCTUATION = ['，', '，', '。', '、', '！', '？', '：', '；'];

function writeChinese(random: Random): string {
  let sentence = '';
  for (let index = 0, length = 6 + integer(random, 24); index < length; index += 1) {
    const roll = random();
    if (roll < 0.04) sentence += ` ${pick(random, ENGLISH)} `;
    else if (roll < 0.06) sentence += String(integer(random, 10_000));
    else if (roll < 0.08) sentence += pick(random, ['“', '”', '《', '》', '（', '）']);
    else sentence += pick(random, CHINESE);
    if (chance(random, 0.12)) sentence += pick(random, CHINESE_PUNCTUATION);
  }
  return `${sentence}${pick(random, ['。', '。', '！', '？'])}${chance(random, 0.15) ? '\n\n' : ''}`;
}

const MIXED_ATOMS = [
  '🙂',
  '👍🏽',
  '👩‍💻',
  '🇫🇷',
  '❤️',
  '🎉🎉',
  '✨',
  '😀😃😄',
  'café',
  'naïve',
  'Ångström',
  'e\u0301',
  'ñ',
  'ǅemal',
  'Привет мир',
  'Ελληνικά',
  'مرحبا بالعالم',
  'नमस्ते दुनिया',
  'こんにちは世界',
  'カタカナ',
  '안녕하세요',
  'ภาษาไทย',
  'שלום',
  '𝐀𝐁𝐂 bold',
  '𝟏𝟐𝟑',
  '𠀀𠀁',
  '½ ¾ Ⅻ',
  '٣٤٥',
  ' \u00a0',
  '\u3000',
  '\t\t',
  '\r\n',
  '   \n',
  '\ufeff',
  '\u200b',
  '\u2028',
  '...',
  '!!!',
  '--->',
  '/* */',
  '\\n',
  "'LL",
  "O'Neil's",
  'ǈ',
  'ʰʲ',
  '\ud800',
  '\udc00x',
  '<|endoftext|>',
  '$$',
  '%20',
  '#hashtag',
  '@mention',
  '1,234.56',
  '3.14159265358979',
  '   ',
  '\n\n\n',
];

function writeMixed(random: Random): string {
  let text = '';
  for (let index = 0, length = 4 + integer(random, 12); index < length; index += 1) {
    const roll = random();
    if (roll < 0.45) text += pick(random, MIXED_ATOMS);
    else if (roll < 0.6) text += pick(random, ENGLISH);
    else if (roll < 0.7) text += pick(random, CHINESE);
    else if (roll < 0.8) text += String.fromCodePoint(0xa0 + integer(random, 0x2fff));
    else text += pick(random, [' ', ' ', '', '\n', ', ']);
  }
  return `${text} `;
}

const WRITERS: Readonly<Record<CorpusClass, (random: Random) => string>> = {
  english: writeEnglish,
  code: writeCode,
  json: writeJson,
  chinese: writeChinese,
  mixed: writeMixed,
};

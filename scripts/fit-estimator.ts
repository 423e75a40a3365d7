/**
 * Fits the coefficients of `EstimatingTokenCounter` against exact o200k_base counts and writes
 * `src/tokens/token-estimate-coefficients.ts`. Deterministic: a generated training corpus (every
 * content class, documents of 200 to 4,000 characters), weighted non-negative least squares on the
 * relative error of each document (so short and long documents, and every class, weigh alike), with
 * a small pull towards a prior so a feature the corpus rarely shows keeps a sensible cost. Prints the
 * mean absolute percentage error per class on a separate test corpus.
 *
 * Run: `npx tsx scripts/fit-estimator.ts` (about a minute), then review and commit the coefficients.
 */
import { writeFile } from 'node:fs/promises';
import { BpeEncoder } from '../src/tokens/bpe-encoder.js';
import { CORPUS_CLASSES, type CorpusClass, generateCorpusDocuments } from '../src/tokens/token-corpus.js';
import { countEstimateFeatures, ESTIMATE_FEATURES } from '../src/tokens/token-estimate-features.js';

const TRAIN_SEED = 1_000;
const TEST_SEED = 2_000;
const DOCUMENTS_PER_CLASS = 800;
const PRIOR_WEIGHT = 1e-3;
const OUTPUT = new URL('../src/tokens/token-estimate-coefficients.ts', import.meta.url);

type Sample = { readonly corpusClass: CorpusClass; readonly features: Float64Array; readonly tokens: number };

const encoder = await BpeEncoder.load('o200k_base');
const samples = (seed: number): Sample[] =>
  CORPUS_CLASSES.flatMap((corpusClass, index) =>
    generateCorpusDocuments({ corpusClass, seed: seed + index, count: DOCUMENTS_PER_CLASS }).map((text) => {
      const features = new Float64Array(ESTIMATE_FEATURES.length);
      countEstimateFeatures(text, features);
      return { corpusClass, features, tokens: encoder.countTokens(text) };
    }),
  );

/** The cost a feature would have with no data: one token per piece, none per extra character. */
function prior(name: string): number {
  if (
    name.endsWith(':chars') ||
    name.endsWith('-letters') ||
    name.startsWith('word:no-') ||
    name === 'script:runs'
  )
    return 0;
  if (name === 'word:capitalised' || name === 'word:symbol-prefix') return 0;
  return 1;
}

/**
 * Minimises Σ (x·c − y)² / y² + λ‖c − c₀‖² subject to c ≥ 0 by cyclic coordinate descent on the
 * normal equations.
 */
function fitCoefficients(training: readonly Sample[]): Float64Array {
  const size = ESTIMATE_FEATURES.length;
  const { gram, target } = normalEquations(training);
  const scale = (PRIOR_WEIGHT * training.length) / size;
  const priors = ESTIMATE_FEATURES.map(prior);
  const coefficients = Float64Array.from(priors);
  for (let sweep = 0; sweep < 20_000; sweep += 1) {
    let change = 0;
    for (let row = 0; row < size; row += 1) {
      let gradient = -(target[row] as number) - scale * (priors[row] as number);
      for (let column = 0; column < size; column += 1)
        gradient += (gram[row * size + column] as number) * (coefficients[column] as number);
      gradient += scale * (coefficients[row] as number);
      const curvature = (gram[row * size + row] as number) + scale;
      const next = Math.max(0, (coefficients[row] as number) - gradient / curvature);
      change = Math.max(change, Math.abs(next - (coefficients[row] as number)));
      coefficients[row] = next;
    }
    if (change < 1e-10) break;
  }
  return coefficients;
}

/** Xᵀ W X and Xᵀ W y with W = 1 / y² (relative error). */
function normalEquations(training: readonly Sample[]): { gram: Float64Array; target: Float64Array } {
  const size = ESTIMATE_FEATURES.length;
  const gram = new Float64Array(size * size);
  const target = new Float64Array(size);
  for (const { features, tokens } of training) {
    const weight = 1 / (tokens * tokens);
    for (let row = 0; row < size; row += 1) {
      const value = (features[row] as number) * weight;
      target[row] = (target[row] as number) + value * tokens;
      for (let column = 0; column < size; column += 1)
        gram[row * size + column] =
          (gram[row * size + column] as number) + value * (features[column] as number);
    }
  }
  return { gram, target };
}

function estimate(features: Float64Array, coefficients: Float64Array): number {
  let total = 0;
  for (let index = 0; index < features.length; index += 1)
    total += (features[index] as number) * (coefficients[index] as number);
  return Math.max(1, Math.round(total));
}

const coefficients = fitCoefficients(samples(TRAIN_SEED));
const testSamples = samples(TEST_SEED);
process.stdout.write('class     MAPE (test corpus)  max error\n');
for (const corpusClass of CORPUS_CLASSES) {
  const errors = testSamples
    .filter((sample) => sample.corpusClass === corpusClass)
    .map((sample) => Math.abs(estimate(sample.features, coefficients) - sample.tokens) / sample.tokens);
  const mape = errors.reduce((sum, error) => sum + error, 0) / errors.length;
  process.stdout.write(
    `${corpusClass.padEnd(10)}${(mape * 100).toFixed(2).padStart(8)} %${(Math.max(...errors) * 100).toFixed(1).padStart(14)} %\n`,
  );
}

const lines = ESTIMATE_FEATURES.map(
  (name, index) => `  '${name}': ${Number((coefficients[index] as number).toPrecision(6))},`,
);
await writeFile(
  OUTPUT,
  [
    '/**',
    ' * Tokens per feature occurrence for `EstimatingTokenCounter`, fitted against exact o200k_base counts',
    ' * by `scripts/fit-estimator.ts` (generated: re-run the script instead of editing by hand).',
    ' * @internal',
    ' */',
    'export const TOKEN_ESTIMATE_COEFFICIENTS: Readonly<Record<string, number>> = Object.freeze({',
    ...lines,
    '});',
    '',
  ].join('\n'),
);
process.stdout.write(`wrote ${OUTPUT.pathname}\n`);

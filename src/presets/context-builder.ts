import { ContextPipeline } from '../pipeline/context-pipeline.js';

/**
 * Builds the context for one model call: providers in order, then filters (see `ContextPipeline`),
 * plus the presets of the spec as static factories.
 *
 * @example
 * const builder = new ContextBuilder({ providers: [new StaticPromptProvider({ text: 'Be brief.' })] });
 * const { messages, trace } = await builder.build({ history });
 */
export class ContextBuilder extends ContextPipeline {}

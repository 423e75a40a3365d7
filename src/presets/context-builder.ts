import { ContextPipeline } from '../pipeline/context-pipeline.js';
import { type ChatPresetOptions, chatPresetOptions } from './for-chat.js';
import { type ReactPresetOptions, reactPresetOptions } from './for-react.js';

/**
 * Builds the context for one model call: providers in order, then filters (see `ContextPipeline`),
 * plus the presets of the spec as static factories.
 *
 * @example
 * const builder = new ContextBuilder({ providers: [new StaticPromptProvider({ text: 'Be brief.' })] });
 * const { messages, trace } = await builder.build({ history });
 */
export class ContextBuilder extends ContextPipeline {
  /**
   * The chat preset: persona → bootstrap files (when `runtimePrompt.includeBootstrapFiles` and a
   * workspace) → history; MaxMessages → TokenBudget. Ignores skill fields.
   * @example const builder = ContextBuilder.forChat({ systemPrompt: 'You are terse.', maxTokens: 8000 });
   */
  static forChat(options: ChatPresetOptions = {}): ContextBuilder {
    return new ContextBuilder(chatPresetOptions(options));
  }

  /**
   * The ReAct preset: persona → ReAct protocol → tools description → bootstrap files → history;
   * MaxMessages → TokenBudget. Ignores skill fields.
   * @example const builder = ContextBuilder.forReact({ toolsDesc: '- read_file: read a file', maxTokens: 8000 });
   */
  static forReact(options: ReactPresetOptions = {}): ContextBuilder {
    return new ContextBuilder(reactPresetOptions(options));
  }
}

import type { BuildContext } from '../pipeline/contracts.js';
import type { Skill, SkillsCatalog } from './skills-catalog.js';

/**
 * Every skill of `catalog`, unavailable ones included, listed once per build (`BuildContext.perBuild`):
 * the providers that read one catalogue in a build share one look at its folders. @internal
 */
export function skillsOfBuild(
  catalog: Pick<SkillsCatalog, 'list'>,
  context: Pick<BuildContext, 'perBuild'>,
): readonly Skill[] {
  const list = () => catalog.list({ includeUnavailable: true });
  return context.perBuild === undefined ? list() : context.perBuild(catalog, list);
}

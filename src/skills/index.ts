/**
 * @module ctxloom/skills
 * SKILL.md parsing, catalogue discovery with precedence and availability, index rendering and
 * explicit `$name` invocation.
 */
export { BUILTIN_SKILLS_DIR } from './builtin-skills-dir.js';
export { EXPLICIT_SKILLS_SOURCE, explicitSkillsBlock, findExplicitSkills } from './explicit-skills.js';
export {
  type ParsedSkillFile,
  parseSkillFile,
  type SafeParseSkillFileResult,
  type SkillMetadata,
  type SkillRequirements,
  safeParseSkillFile,
  stripFrontmatter,
} from './parse-skill-file.js';
export { renderSkillBlocks } from './render-skill-blocks.js';
export {
  displayRoot,
  renderSkillsIndex,
  type SkillsIndexFormat,
  type SkillsIndexOptions,
  unavailableSuffix,
} from './render-skills-index.js';
export { type ResolveSkillReadPathOptions, resolveSkillReadPath } from './resolve-skill-read-path.js';
export { skillContractIssues } from './skill-contract-issues.js';
export {
  createSkillEnvironment,
  createStaticSkillEnvironment,
  type SkillEnvironment,
  type SkillEnvironmentOptions,
} from './skill-environment.js';
export {
  type ListSkillsOptions,
  type Skill,
  type SkillProblem,
  type SkillSource,
  SkillsCatalog,
  type SkillsCatalogOptions,
} from './skills-catalog.js';

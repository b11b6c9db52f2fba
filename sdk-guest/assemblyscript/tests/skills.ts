// A plugin shipping the skill tests/skills/review, embedded at build time:
// run.mjs generates build/skills.gen.ts from the folder with embed-skill.mjs.
import "../build/skills.gen";
export { list_skills } from "../assembly/index";

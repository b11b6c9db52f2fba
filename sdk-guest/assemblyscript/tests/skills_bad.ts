// Skills the SDK refuses: a file path that leaves the skill (run.mjs).
import { registerSkill } from "../assembly/index";
export { list_skills } from "../assembly/index";

registerSkill("review").text("SKILL.md", "---\nname: review\ndescription: d\n---\n").text("../other/SKILL.md", "x");

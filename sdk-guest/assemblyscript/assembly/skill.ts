// Skills (ABI.md section 5a): a plugin ships Agent Skills, each a path and
// its files; the host serves them as skill://<path>/<file> resources.
// AssemblyScript cannot read files at compile time, so a build step turns a
// skill folder into a registration (embed-skill.mjs in this package):
//
//   node node_modules/@mcpwasm/sdk/embed-skill.mjs skills/review > assembly/skills.ts
//
// writes registerSkill("review").text("SKILL.md", "...")... for every file.

import { JSONValue } from "./json";
import { setError } from "./host";
import { outputList } from "./envelope";
import { base64 } from "./tool";

class SkillFile {
  constructor(public path: string, public text: string | null, public bytes: Uint8Array | null, public mimeType: string) {}
}

/** One skill: its path (the last segment is its name) and its files. */
export class Skill {
  files: SkillFile[] = [];
  constructor(public path: string) {}

  /** Adds a text file, its path relative to the skill's root. */
  text(path: string, content: string): Skill {
    this.files.push(new SkillFile(path, content, null, ""));
    return this;
  }

  /** Adds a binary file (sent as base64); mimeType "" lets the host guess. */
  bytes(path: string, content: Uint8Array, mimeType: string = ""): Skill {
    this.files.push(new SkillFile(path, null, content, mimeType));
    return this;
  }
}

// Created by the first registerSkill, so a plugin without skills has no
// start-up code for them (and builds to the same bytes as before).
let registered: Skill[] | null = null;

/** Registers a skill at path ("review", "acme/billing/refunds"). */
export function registerSkill(path: string): Skill {
  const s = new Skill(path);
  let all = registered;
  if (all === null) {
    all = [];
    registered = all;
  }
  all.push(s);
  return s;
}

function pathOK(p: string): bool {
  if (p.length == 0 || p.startsWith("/") || p.includes("\\")) return false;
  const segs = p.split("/");
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    if (s.length == 0 || s == "." || s == "..") return false;
  }
  return true;
}

/** The body of the list_skills export. */
export function listSkills(): i32 {
  const list = JSONValue.array();
  const all = registered;
  const skills: Skill[] = all === null ? [] : all;
  for (let i = 0; i < skills.length; i++) {
    const s = skills[i];
    if (!pathOK(s.path)) { setError("skill \"" + s.path + "\": not a valid skill path"); return 1; }
    for (let j = 0; j < i; j++) {
      if (skills[j].path == s.path) { setError("skill " + s.path + " is declared twice"); return 1; }
    }
    const files = JSONValue.array();
    let hasMD = false;
    for (let f = 0; f < s.files.length; f++) {
      const fl = s.files[f];
      if (!pathOK(fl.path)) { setError("skill " + s.path + ": file \"" + fl.path + "\": not a valid path inside a skill"); return 1; }
      for (let g = 0; g < f; g++) {
        if (s.files[g].path == fl.path) { setError("skill " + s.path + ": file " + fl.path + " is declared twice"); return 1; }
      }
      if (fl.path == "SKILL.md") hasMD = true;
      const v = JSONValue.object().setString("path", fl.path);
      const text = fl.text;
      if (text !== null) v.setString("text", text);
      else v.setString("blob", base64(fl.bytes!));
      if (fl.mimeType.length > 0) v.setString("mimeType", fl.mimeType);
      files.push(v);
    }
    if (!hasMD) { setError("skill " + s.path + " has no SKILL.md"); return 1; }
    list.push(JSONValue.object().setString("path", s.path).set("files", files));
  }
  return outputList("skills", list);
}

/** mcpwasm ABI 1.1 export: {"skills": [{"path", "files"}]} of every registered skill. */
export function list_skills(): i32 {
  return listSkills();
}

use mcpwasm::testing as t;
use mcpwasm::Skill;

// As a plugin would: the files embedded at build time.
mcpwasm::skills! {
    skills: [
        Skill::new("review")
            .text("SKILL.md", include_str!("skills/review/SKILL.md"))
            .text("references/checklist.md", include_str!("skills/review/references/checklist.md"))
            .bytes("assets/x.bin", &[0, 1, 255], "application/octet-stream"),
    ],
}

#[test]
fn lists_embedded_files() {
    let v = t::list_skills(&mcpwasm_skills()).unwrap();
    assert_eq!(
        v.to_json(),
        r###"{"skills":[{"path":"review","files":[{"path":"SKILL.md","text":"---\nname: review\ndescription: Review a change\n---\n# Review\n"},{"path":"references/checklist.md","text":"- tests\n"},{"path":"assets/x.bin","blob":"AAH/","mimeType":"application/octet-stream"}]}]}"###
    );
}

#[test]
fn refuses_bad_skills() {
    let md = "---\nname: a\ndescription: b\n---\n";
    for (s, want) in [
        (Skill::new("a").text("README.md", md), "has no SKILL.md"),
        (Skill::new("../a").text("SKILL.md", md), ". or .. segment"),
        (Skill::new("a").text("SKILL.md", md).text("../x", md), ". or .. segment"),
        (Skill::new("a").text("SKILL.md", md).text("/etc/passwd", md), "absolute"),
        (Skill::new("a").text("SKILL.md", md).text("SKILL.md", md), "declared twice"),
    ] {
        let err = t::list_skills(&[s]).unwrap_err();
        assert!(err.contains(want), "{} does not contain {}", err, want);
    }
    let md2 = Skill::new("a").text("SKILL.md", md);
    assert!(t::list_skills(&[md2.clone(), md2]).unwrap_err().contains("declared twice"));
}

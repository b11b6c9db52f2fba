//! Name globs: `*` matches any run of characters (including none), `?` one
//! character; everything else matches itself. Patterns match whole names,
//! never paths, so `*` never has to stop at a `/`.

/// Whether `name` matches `pattern`, comparing characters case-insensitively
/// when `ignore_case` is set.
pub fn matches(pattern: &str, name: &str, ignore_case: bool) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let same = |a: char, b: char| a == b || (ignore_case && a.to_lowercase().eq(b.to_lowercase()));
    // Greedy matching with one backtrack point: the last '*' seen and the
    // name position it has consumed up to. Linear in practice, and never
    // exponential.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
        } else if pi < p.len() && (p[pi] == '?' || same(p[pi], n[ni])) {
            pi += 1;
            ni += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs() {
        let yes = [
            ("*", ""),
            ("*", "anything.txt"),
            ("*.rs", "lib.rs"),
            ("*.rs", ".rs"),
            ("lib.rs", "lib.rs"),
            ("?.txt", "a.txt"),
            ("a*b*c", "aXXbYYc"),
            ("a*b*c", "abc"),
            ("*a*", "banana"),
            ("**", "x"),
            ("*.tar.gz", "x.tar.gz"),
            ("é?", "éa"),
            ("?", "é"),
            ("*X*", "aXb"),
        ];
        for (p, n) in yes {
            assert!(matches(p, n, false), "{} should match {}", p, n);
        }
        let no = [
            ("*.rs", "lib.rs.bak"),
            ("?.txt", "ab.txt"),
            ("?", ""),
            ("a*b*c", "acb"),
            ("lib.rs", "Lib.rs"),
            ("*.md", "README.MD"),
            ("abc", "abcd"),
            ("[ab]", "a"),
        ];
        for (p, n) in no {
            assert!(!matches(p, n, false), "{} should not match {}", p, n);
        }
        assert!(matches("*.md", "README.MD", true));
        assert!(matches("Lib.RS", "lib.rs", true));
        assert!(matches("É*", "état", true));
    }

    #[test]
    fn no_blowup() {
        let name = "a".repeat(2000);
        assert!(!matches(&format!("{}b", "*a".repeat(50)), &name, false));
    }
}

//! The documentation cannot go stale: every Markdown page of the repository (the README, ARCHITECTURE.md,
//! `docs/`, the reports' READMEs) is read, and
//! - every relative link and image points at a file that exists (and a `#section` at a heading of it);
//! - every `pbdfit` command line in a shell block (```sh) names a command and options that exist (its
//!   `--help` lists them);
//! - every sample in a ```console block is run: each `$ pbdfit ...` line with the built binary, its
//!   standard output compared with the lines shown below it, wall-clock figures (`0.153 s`, `12.5 ms`)
//!   masked on both sides;
//! - every `cargo test -p CRATE --test TARGET FILTER` a page names (in a block or in the text) names a
//!   test target that exists and a filter that selects something in it (a test module, and a test function
//!   where the filter names one).
//!
//! One module: `cargo test -p pbdfit --test cli docs::`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root (two folders above this crate).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository")
}

/// Every Markdown page the documentation is made of.
fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut pages = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    for folder in ["docs", "reports", "benchmarks/engines", "python"] {
        let mut stack = vec![root.join(folder)];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "md") {
                    pages.push(path);
                }
            }
        }
    }
    pages.sort();
    assert!(pages.len() >= 15, "the documentation's pages: {pages:?}");
    pages
}

/// A fenced block: its info string, its lines, and the line it starts on.
struct Block {
    info: String,
    lines: Vec<String>,
    line: usize,
}

/// The fenced blocks of a page, and its text outside them.
fn split(text: &str) -> (Vec<Block>, Vec<(usize, String)>) {
    let mut blocks = Vec::new();
    let mut prose = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("```") {
            match open.take() {
                Some(block) => blocks.push(block),
                None => open = Some(Block { info: rest.trim().to_string(), lines: Vec::new(), line: i + 1 }),
            }
        } else if let Some(block) = &mut open {
            block.lines.push(line.to_string());
        } else {
            prose.push((i + 1, line.to_string()));
        }
    }
    assert!(open.is_none(), "a fenced block is never closed");
    (blocks, prose)
}

/// GitHub's anchor of a heading: lower case, spaces to `-`, punctuation but `-` and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let (_, prose) = split(text);
    prose.iter().filter_map(|(_, l)| l.strip_prefix('#')).map(|h| anchor(h.trim_start_matches('#'))).collect()
}

/// The link targets `](target)` of a line (images included).
fn links(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        out.push(after[..end].trim().to_string());
        rest = &after[end..];
    }
    out
}

#[test]
fn every_link_and_image_points_at_something() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        let (_, prose) = split(&text);
        for (line, content) in &prose {
            for target in links(content) {
                if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (file, section) = target.split_once('#').unwrap_or((&target, ""));
                let path = if file.is_empty() { page.clone() } else { page.parent().expect("a folder").join(file) };
                let at = format!("{}:{line}: {target}", page.strip_prefix(root()).unwrap_or(&page).display());
                if !path.exists() {
                    broken.push(format!("{at}: no such file"));
                    continue;
                }
                if !section.is_empty() {
                    let linked = if path.is_dir() { path.join("README.md") } else { path.clone() };
                    let text = std::fs::read_to_string(&linked).unwrap_or_default();
                    if !anchors(&text).contains(section) {
                        broken.push(format!("{at}: no heading `{section}` in {}", linked.display()));
                    }
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} links found: is the reader right?");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The subcommands `pbdfit <command> --help` lists under `Commands:` (`bench`: `pbd`, `gpu`), none for a
/// command without them.
fn subcommands(command: &str) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_pbdfit")).args([command, "--help"]).output().expect("pbdfit runs");
    let help = String::from_utf8_lossy(&out.stdout).to_string();
    help.split("Commands:")
        .nth(1)
        .map(|list| {
            list.lines()
                .skip(1)
                .take_while(|l| !l.trim().is_empty())
                .filter_map(|l| l.split_whitespace().next())
                .filter(|w| *w != "help")
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The options `pbdfit <command> --help` lists (`--name`), with `--help` itself; `command` may be a
/// command and its subcommand (`bench pbd`).
fn options(command: &str) -> Option<BTreeSet<String>> {
    let mut args: Vec<&str> = command.split(' ').collect();
    args.push("--help");
    let out = Command::new(env!("CARGO_BIN_EXE_pbdfit")).args(&args).output().expect("pbdfit runs");
    if !out.status.success() {
        return None;
    }
    let help = String::from_utf8_lossy(&out.stdout).to_string();
    let mut set: BTreeSet<String> = help
        .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter(|w| w.starts_with("--"))
        .map(|w| w.split(['=', '<']).next().unwrap_or(w).to_string())
        .collect();
    set.insert("--help".into());
    Some(set)
}

#[test]
fn every_command_line_in_the_docs_names_options_that_exist() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    let mut known = std::collections::BTreeMap::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        let (blocks, _) = split(&text);
        for block in blocks.iter().filter(|b| b.info == "sh" || b.info == "console") {
            // Continuation lines (`\` at the end) belong to their command.
            let joined = block.lines.join("\n").replace("\\\n", " ");
            for (k, line) in joined.lines().enumerate() {
                let line = line.trim().trim_start_matches("$ ");
                // The binary by its path (`target/release/pbdfit fit ...`) is the same command line.
                let line =
                    line.strip_prefix("target/release/").or_else(|| line.strip_prefix("target/debug/")).unwrap_or(line);
                let Some(args) = line.strip_prefix("pbdfit ") else { continue };
                let args = args.split(" #").next().unwrap_or(args);
                let mut words: Vec<&str> = args.split_whitespace().collect();
                let Some(first) = words.first() else { continue };
                // A command with subcommands (`bench pbd`): the subcommand's options.
                let mut command = first.to_string();
                if let Some(sub) = words.get(1).filter(|w| subcommands(first).contains(**w)) {
                    command = format!("{first} {sub}");
                    words.remove(0);
                }
                let at = format!("{}:{}", page.strip_prefix(root()).unwrap_or(&page).display(), block.line + k + 1);
                let Some(listed) = known.entry(command.clone()).or_insert_with(|| options(&command)) else {
                    wrong.push(format!("{at}: no command `pbdfit {command}`"));
                    continue;
                };
                checked += 1;
                for word in &words[1..] {
                    let flag = word.trim_start_matches('[').trim_end_matches(']').split('=').next().unwrap_or(word);
                    if flag.starts_with("--") && !listed.contains(flag) {
                        wrong.push(format!("{at}: `pbdfit {command}` has no option {flag}"));
                    }
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} command lines found");
    assert!(wrong.is_empty(), "stale command lines:\n{}", wrong.join("\n"));
}

/// Every `cargo test -p CRATE --test TARGET [FILTER]` in `text` (blocks and prose alike), as its three words
/// (the filter empty where there is none).
fn test_commands(text: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for piece in text.split("cargo test -p ").skip(1) {
        // The command ends at the code span's backtick, a closing parenthesis or the line's end.
        let command = piece.split(['`', ')', '\n']).next().unwrap_or("");
        let words: Vec<&str> = command.split_whitespace().take(4).collect();
        if let [krate, "--test", target, rest @ ..] = words.as_slice() {
            let filter = rest.first().filter(|w| !w.starts_with('-')).map_or("", |w| w);
            out.push((krate.to_string(), target.to_string(), filter.to_string()));
        }
    }
    out
}

#[test]
fn every_cargo_test_command_in_the_docs_selects_tests_that_exist() {
    let root = root();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        let at = page.strip_prefix(&root).unwrap_or(&page).display().to_string();
        for (krate, target, filter) in test_commands(&text) {
            checked += 1;
            let tests = root.join("crates").join(&krate).join("tests");
            if !tests.join(format!("{target}.rs")).is_file() {
                wrong.push(format!(
                    "{at}: `cargo test -p {krate} --test {target}`: no crates/{krate}/tests/{target}.rs"
                ));
                continue;
            }
            // A target's modules are the files of its `<target>_tests/` folder (this suite's layout).
            let mut parts = filter.split("::").filter(|p| !p.is_empty());
            let Some(module) = parts.next() else { continue };
            let file = tests.join(format!("{target}_tests")).join(format!("{module}.rs"));
            let Ok(source) = std::fs::read_to_string(&file) else {
                wrong.push(format!(
                    "{at}: `{filter}` selects nothing: no module {module} in crates/{krate}/tests/{target}_tests/"
                ));
                continue;
            };
            if let Some(function) = parts.next()
                && !source.contains(&format!("fn {function}"))
            {
                wrong.push(format!("{at}: `{filter}` selects nothing: no test {function}... in {}", file.display()));
            }
        }
    }
    assert!(checked >= 5, "only {checked} cargo test commands found");
    assert!(wrong.is_empty(), "stale test commands:\n{}", wrong.join("\n"));
    assert_eq!(
        test_commands(
            "run `cargo test -p pbdfit --test cli docs::` or (cargo test -p a --test b) and cargo test -p c --test d -- --nocapture"
        ),
        [
            ("pbdfit".into(), "cli".into(), "docs::".into()),
            ("a".into(), "b".into(), String::new()),
            ("c".into(), "d".into(), String::new())
        ]
    );
}

/// A run's output with wall-clock figures masked: a number followed by ` s` or ` ms` (a duration).
fn masked(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        let mut kept = Vec::with_capacity(words.len());
        for (i, w) in words.iter().enumerate() {
            let next = words.get(i + 1).map(|n| n.trim_end_matches([',', ')', ';']));
            let number = w.trim_start_matches('(');
            let duration = matches!(next, Some("s") | Some("ms")) && number.parse::<f64>().is_ok();
            kept.push(if duration { if number.len() < w.len() { "(<t>" } else { "<t>" } } else { w });
        }
        out.push_str(kept.join(" ").trim_end());
        out.push('\n');
    }
    out
}

/// Splits a command line into words, honouring double quotes.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[test]
fn every_sample_output_is_what_the_command_prints() {
    let mut differ = Vec::new();
    let mut ran = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        let (blocks, _) = split(&text);
        for block in blocks.iter().filter(|b| b.info == "console") {
            let mut samples: Vec<(String, Vec<String>)> = Vec::new();
            for line in &block.lines {
                match line.strip_prefix("$ ") {
                    Some(command) => samples.push((command.to_string(), Vec::new())),
                    None => samples.last_mut().expect("a console block starts with `$ `").1.push(line.clone()),
                }
            }
            for (command, expected) in samples {
                let args = words(&command);
                assert_eq!(args[0], "pbdfit", "{}:{}: a sample runs pbdfit", page.display(), block.line);
                let out = Command::new(env!("CARGO_BIN_EXE_pbdfit"))
                    .args(&args[1..])
                    .current_dir(root())
                    .output()
                    .expect("pbdfit runs");
                ran += 1;
                // A sample of a refusal shows the error line: it is what the command writes on stderr, with
                // exit code 2 (bad input or no answer); any other sample is stdout with exit code 0.
                let refusal = expected.first().is_some_and(|l| l.starts_with("pbdfit: error:"));
                let (printed, code) = if refusal { (&out.stderr, Some(2)) } else { (&out.stdout, Some(0)) };
                let got = masked(&String::from_utf8_lossy(printed));
                let want = masked(&(expected.join("\n") + "\n"));
                if out.status.code() != code || !abridged_match(&got, &want) {
                    differ.push(format!(
                        "{}:{}: `{command}` (exit {:?}) printed\n{got}instead of\n{want}",
                        page.strip_prefix(root()).unwrap_or(&page).display(),
                        block.line,
                        out.status.code()
                    ));
                }
            }
        }
    }
    assert!(ran >= 3, "only {ran} samples ran");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// Whether `got` is `want` where `want` may be abridged: a line `...` alone stands for any number of lines
/// (none included), and `...` at the end of a line for the rest of that line.
fn abridged_match(got: &str, want: &str) -> bool {
    fn line_matches(got: &str, want: &str) -> bool {
        match want.strip_suffix("...") {
            Some(prefix) if !prefix.trim().is_empty() => got.starts_with(prefix),
            _ => got == want,
        }
    }
    fn lines_match(got: &[&str], want: &[&str]) -> bool {
        match want.split_first() {
            None => got.is_empty(),
            Some((w, rest)) if w.trim() == "..." => (0..=got.len()).any(|skip| lines_match(&got[skip..], rest)),
            Some((w, rest)) => {
                got.split_first().is_some_and(|(g, grest)| line_matches(g, w) && lines_match(grest, rest))
            }
        }
    }
    let got: Vec<&str> = got.lines().collect();
    let want: Vec<&str> = want.lines().collect();
    lines_match(&got, &want)
}

/// A command's output shown in a block that is not a ```console sample is never run, so it goes stale
/// unseen: every block that shows a `$ pbdfit` prompt must be a ```console sample (run above).
#[test]
fn every_prompt_in_the_docs_is_a_sample_that_runs() {
    let mut wrong = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        let (blocks, _) = split(&text);
        for block in blocks.iter().filter(|b| b.info != "console") {
            if block.lines.iter().any(|l| l.trim_start().starts_with("$ pbdfit")) {
                wrong.push(format!(
                    "{}:{}: a `$ pbdfit` prompt in a ```{} block: make it a ```console sample (its output is then checked)",
                    page.strip_prefix(root()).unwrap_or(&page).display(),
                    block.line,
                    block.info
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_readers_rules_hold() {
    assert!(abridged_match("a\nb\nc\n", "a\n...\nc\n"));
    assert!(abridged_match("a\nc\n", "a\n...\nc\n"));
    assert!(abridged_match("a long line\n", "a long...\n"));
    assert!(!abridged_match("a\nb\n", "a\nc\n"));
    assert!(!abridged_match("a\nb\nd\n", "a\n...\nc\n"));
    assert!(!abridged_match("x long line\n", "a long...\n"));
    assert_eq!(subcommands("bench"), BTreeSet::from(["pbd", "gpu", "fit", "motion", "rest-solvers"].map(String::from)));
    assert!(subcommands("fit").is_empty());
    assert_eq!(anchor("Your engine, your answer"), "your-engine-your-answer");
    assert_eq!(anchor("`pbdfit fit`: the options"), "pbdfit-fit-the-options");
    assert_eq!(links("see [a](b.md) and ![c](d/e.png#x)"), ["b.md", "d/e.png#x"]);
    assert_eq!(masked("fit in 0.153 s (12 ms), error 0.5 m\n"), "fit in <t> s (<t> ms), error 0.5 m\n");
    assert_eq!(words(r#"pbdfit fit --scene "a b.toml" --n 2"#), ["pbdfit", "fit", "--scene", "a b.toml", "--n", "2"]);
}

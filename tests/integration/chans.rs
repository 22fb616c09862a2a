//! Polls (`c?[...]`) and receives that keep the message (`c ?<...>`):
//! the models of `inputs/chans` hold their hand-counted headers in every
//! mode, print back to themselves, and say why a blocked keeping receive
//! waits. Misuses are in `inputs/errors` (`poll-*.gc`, `keep-*.gc`).

use optimist::{Source, parse, pretty};

use crate::common::{optimist, rel};

#[test]
fn channel_models_hold_their_headers() {
    insta::glob!("inputs/chans", "*.gc", crate::models::check_headers);
}

/// The pretty-printer writes polls and keeping receives so that they
/// parse back to the same tree, and the printed model checks alike.
#[test]
fn polls_and_keeping_receives_print_back() {
    insta::glob!("inputs/chans", "*.gc", |path| {
        let file = rel(path);
        let text = std::fs::read_to_string(path).unwrap();
        let ast = parse(&Source::new(&file, text).unwrap()).unwrap();
        let printed = pretty::model(&ast);
        assert!(
            printed.contains("?[") || printed.contains("?<"),
            "{file}: {printed}"
        );
        let again = parse(&Source::new("printed.gc", printed.clone()).unwrap())
            .unwrap_or_else(|e| panic!("{file}: {e}\n{printed}"));
        assert_eq!(ast, again, "{file} printed as\n{printed}");
        assert_eq!(pretty::model(&again), printed);
        let dir = std::env::temp_dir().join(format!("optimist-chans-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let copy = dir.join(path.file_name().unwrap());
        std::fs::write(&copy, &printed).unwrap();
        let states = |f: &str| {
            let run = optimist(["check", f, "--reduction", "none"]);
            assert_eq!(run.code, 0, "{f}: {}{}", run.stdout, run.stderr);
            run.stdout
                .lines()
                .find(|l| l.starts_with("states"))
                .map(str::to_string)
        };
        assert_eq!(states(&file), states(copy.to_str().unwrap()), "{file}");
        std::fs::remove_dir_all(&dir).ok();
    });
}

/// A keeping receive blocked on a first message that does not match is
/// reported as a receive is, naming the channel and the message; one that
/// matches copies the message and leaves it for the next.
#[test]
fn a_blocked_keeping_receive_says_why() {
    let src = "chan c : [2] of {0..3, bool};\n\
               thread T {\n  local x : 0..3 = 0;\n  c ! 1, true;\n  c ?<x, true>;\n  \
               c ?<eval(x), true>;\n  c ?<2, _>;\n}\n";
    let dir = std::env::temp_dir().join(format!("optimist-keep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("keep.gc");
    std::fs::write(&file, src).unwrap();
    let run = optimist(["check", file.to_str().unwrap(), "--reduction", "none"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "`c ?<2, _>` (line 7) waits to receive from c: its first message (1, true) does not match"
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("states       4"), "{}", run.stdout);
    std::fs::remove_dir_all(&dir).ok();
}

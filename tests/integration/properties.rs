//! Property tests of the front end: the pretty-printer round-trips, generated
//! models compile, and no input whatsoever makes the checker panic.

use std::time::Duration;

use optimist::{Limits, Options, Source, compile, parse, parse_expr, pretty};
use proptest::prelude::*;

use crate::generate::{Choices, choices, expr, system};

fn parse_text(text: &str) -> optimist::ast::Model {
    let src = Source::new("generated.gc", text).unwrap();
    parse(&src).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Runs the whole pipeline on arbitrary text with tight limits; only a panic
/// can fail this.
fn run_anything(text: &str) {
    let Ok(src) = Source::new("fuzz.gc", text) else {
        return;
    };
    let Ok(model) = compile(&src, &[]) else {
        return;
    };
    let options = Options {
        limits: Limits {
            max_states: Some(2_000),
            max_time: Some(Duration::from_secs(2)),
            max_memory: None,
        },
        ..Options::default()
    };
    let outcome = optimist::check(&model, &options, &mut |_| {});
    let _ = optimist::CheckReport::new(&model, "fuzz.gc", options.reduction, &outcome).to_string();
}

const TOKENS: &[&str] = &[
    "system",
    "s",
    ";",
    "threads",
    "2",
    "thread",
    "T",
    "{",
    "}",
    "lock",
    "m",
    "shared",
    "y",
    ":",
    "0",
    "..",
    "3",
    "=",
    "protected",
    "x",
    "by",
    "excl",
    "(",
    "t",
    ")",
    "==",
    "||",
    "&&",
    "!",
    "-",
    "+",
    "*",
    "/",
    "%",
    "<",
    "<=",
    "acquire",
    "release",
    "down",
    "up",
    "sem",
    "await",
    "assert",
    "atomic",
    "if",
    "else",
    "while",
    "either",
    "or",
    "goto",
    "L",
    "L:",
    ":=",
    "any",
    "self",
    "free",
    "true",
    "at",
    ",",
    "[",
    "]",
    "exists",
    "in",
    "invariant",
    "const",
    "N",
    "local",
    "r",
    "bool",
    "skip",
    "99999999999999999999",
    "/*",
    "*/",
    "//",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn printed_models_parse_back_to_the_same_ast(data in choices()) {
        let text = system(&mut Choices::new(&data));
        let ast = parse_text(&text);
        let printed = pretty::model(&ast);
        let again = parse_text(&printed);
        prop_assert_eq!(&ast, &again, "printed:\n{}", printed);
        prop_assert_eq!(pretty::model(&again), printed);
    }

    #[test]
    fn printed_expressions_parse_back_to_the_same_ast(data in choices()) {
        let text = expr(&mut Choices::new(&data), 4);
        let e = parse_expr(&text).unwrap_or_else(|err| panic!("{err:?}: {text}"));
        let printed = pretty::expr(&e);
        let again = parse_expr(&printed).unwrap_or_else(|err| panic!("{err:?}: {printed}"));
        prop_assert_eq!(&e, &again, "{} printed as {}", text, printed);
    }

    #[test]
    fn generated_models_compile(data in choices()) {
        let text = system(&mut Choices::new(&data));
        let src = Source::new("generated.gc", text.clone()).unwrap();
        if let Err(e) = compile(&src, &[]) {
            panic!("{e}\n{text}");
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        run_anything(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(0..TOKENS.len(), 0..120)) {
        let text: Vec<&str> = tokens.iter().map(|&k| TOKENS[k]).collect();
        run_anything(&text.join(" "));
    }

    #[test]
    fn damaged_models_never_panic(data in choices(), at in any::<prop::sample::Index>(), cut in 0usize..8, junk in "[ -~]{0,4}") {
        let text = system(&mut Choices::new(&data));
        let mut k = at.index(text.len().max(1)).min(text.len());
        while !text.is_char_boundary(k) { k -= 1; }
        let end = (k + cut).min(text.len());
        let damaged = format!("{}{}{}", &text[..k], junk, &text[end..]);
        run_anything(&damaged);
    }
}

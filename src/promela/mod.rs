//! The Promela front end: a documented subset of SPIN's Promela, read into
//! optimist's [`ast::Model`] so that every later stage works unchanged
//! (reference: `docs/src/promela.md`).

mod lower;
mod parse;
mod pre;

use crate::error::{Error, Source};
use crate::syntax::ast;
use crate::syntax::span::Span;

/// True when `name` is a Promela file by its extension.
pub(crate) fn is_promela(name: &str) -> bool {
    let ext = std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str());
    matches!(ext, Some("pml" | "prom" | "promela"))
}

/// Reads `src` as Promela, with `defines` as `-DNAME=VALUE` macros and
/// pools of `pool_size` processes for the proctypes `run` in loops or
/// recursion.
pub(crate) fn parse(
    src: &Source,
    defines: &[(String, String)],
    pool_size: u32,
) -> Result<ast::Model, Error> {
    let path = (src.name != "<stdin>").then(|| std::path::Path::new(&src.name));
    let end = Span::new(src.text.len(), src.text.len());
    let at = |e: pre::PreError| Error::at(src, e.span, e.message, None, Vec::new());
    let toks = pre::preprocess(&src.text, path, defines).map_err(at)?;
    if let Some(t) = toks.iter().find(|t| matches!(t.kind, pre::Tk::Bad(_))) {
        let pre::Tk::Bad(c) = t.kind else {
            unreachable!()
        };
        return Err(at(pre::PreError {
            span: t.span,
            message: format!("unexpected character {c:?}"),
        }));
    }
    let spec = parse::parse(&toks, end).map_err(at)?;
    lower::lower(&spec, end, pool_size as usize).map_err(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Result<parse::Spec, String> {
        let toks = pre::preprocess(text, None, &[]).map_err(|e| e.message)?;
        parse::parse(&toks, Span::new(text.len(), text.len())).map_err(|e| e.message)
    }

    fn model(text: &str) -> Result<ast::Model, String> {
        let src = Source::new("t.pml", text).map_err(|e| e.to_string())?;
        parse(&src, &[], crate::DEFAULT_MAX_STACK).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_processes_options_and_ltl() {
        let s = spec(
            "mtype = {a, b}; chan c = [1] of {mtype, byte};\n\
             active [2] proctype P(byte x) { end: do :: c?a,x -> x++ :: else -> break od }\n\
             init { atomic { run Q(c) } }\n\
             proctype Q(chan d) { d!b,1 }\n\
             ltl p { [] (P[0]@end -> <> (len(c) == 0)) }",
        )
        .unwrap();
        assert_eq!(s.mtypes[0].names.len(), 2);
        assert_eq!(s.procs.len(), 2);
        assert!(s.init.is_some());
        assert_eq!(s.ltl.len(), 1);
        let parse::Sk::Label(l, inner) = &s.procs[0].body[0].kind else {
            panic!()
        };
        assert_eq!(l, "end");
        let parse::Sk::Do(opts) = &inner.kind else {
            panic!()
        };
        assert_eq!(opts.len(), 2);
    }

    #[test]
    fn refusals_name_the_construct() {
        for (text, what) in [
            ("active proctype P() { skip unless { skip } }", "`unless`"),
            ("never { skip }", "never claim"),
            (
                "chan c = [1] of {byte}; active proctype P() { c!!1 }",
                "sorted send",
            ),
            (
                "chan c = [1] of {byte}; active proctype P() { c??1 }",
                "random receive",
            ),
            (
                "chan c = [1] of {byte}; active proctype P() { (c??[1]) -> skip }",
                "random receive",
            ),
            ("ltl p { X true }", "`X`"),
            ("active proctype P() { c_code { x } }", "embedded C"),
        ] {
            let e = spec(text).unwrap_err();
            assert!(
                e.contains(what) && e.contains("not supported"),
                "{text}: {e}"
            );
        }
        let e = model("byte x; active proctype P() { x = x & 1 }").unwrap_err();
        assert!(e.contains("bitwise"), "{e}");
    }

    #[test]
    fn lowers_mtypes_as_spin_numbers_them() {
        let m = model("mtype = {a, b, c}; active proctype P() { skip }").unwrap();
        let vals: Vec<(String, String)> = m
            .consts()
            .map(|c| (c.name.name.clone(), format!("{:?}", c.value.kind)))
            .collect();
        assert_eq!(vals[0], ("a".into(), "Int(3)".into()));
        assert_eq!(vals[2], ("c".into(), "Int(1)".into()));
    }

    /// The numbers `spin` prints (`printf("%d", ...)`, SPIN 6.5.2) for
    /// two plain declarations and two named sets: each set counts on its
    /// own, and a later declaration of a set continues its count.
    #[test]
    fn numbers_named_mtypes_as_spin_does() {
        let m = model(
            "mtype { a, b }\n\
             mtype:x = { p, q }\n\
             mtype { c, d, e }\n\
             mtype:x = { r }\n\
             mtype:y = { s, t }\n\
             mtype = { f }\n\
             mtype:x v = r; mtype w = f;\n\
             active proctype P(mtype:y z) { skip }",
        )
        .unwrap();
        let vals: Vec<String> = m
            .consts()
            .map(|c| format!("{}={:?}", c.name.name, c.value.kind))
            .collect();
        let want = [
            "a=Int(2)", "b=Int(1)", "p=Int(2)", "q=Int(1)", "c=Int(5)", "d=Int(4)", "e=Int(3)",
            "r=Int(3)", "s=Int(2)", "t=Int(1)", "f=Int(6)",
        ];
        assert_eq!(vals, want);
        let e = model("mtype:x = { p, q }; mtype = { q }").unwrap_err();
        assert!(e.contains("`q` is already an mtype name"), "{e}");
    }

    #[test]
    fn one_thread_per_process_with_spin_pids() {
        let m = model(
            "active [2] proctype A() { skip }\n\
             proctype B(byte v) { skip }\n\
             init { run B(1); run B(2) }",
        )
        .unwrap();
        let names: Vec<&str> = m.threads().map(|t| t.name.name.as_str()).collect();
        assert_eq!(names, ["A_0", "A_1", "init", "B_3", "B_4"]);
    }
}

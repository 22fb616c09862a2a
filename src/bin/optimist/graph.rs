//! `optimist graph`: the state graph of a small model, with a reduced
//! search drawn over it.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use optimist::{Ignoring, Reduction};

use crate::check::ReductionArg;
use crate::common::{DeadlockArgs, ModelArgs, write_err, write_out};

/// The most states `--max-states` may allow: a picture of more says nothing.
const MAX_DRAWN: usize = 5_000;

/// Arguments of `optimist graph`.
#[derive(Args, Debug)]
pub struct GraphArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Draw this reduced search over the full graph: the states it stores
    /// filled, its steps in red. The default, `none`, draws the full graph
    /// alone: a picture is of the original system, which a reduction only
    /// marks up.
    #[arg(long, value_enum, default_value = "none")]
    reduction: ReductionArg,
    /// dot (Graphviz), svg (laid out by optimist, no Graphviz needed), or json.
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
    format: GraphFormat,
    /// Refuse models with more states than this (exit 3); at most 5000. The
    /// default is lower than `check`'s (none): a picture of more states
    /// cannot be read.
    #[arg(long, value_name = "N", default_value_t = 300)]
    max_states: usize,
    /// Instead of the state graph, check the model (under --reduction) and
    /// draw its counterexample: a path of states, a deadlocked one marked
    /// (dot), a chart with one column per thread (svg), or the check's
    /// report with the drawing (json).
    #[arg(long)]
    trace: bool,
    #[command(flatten)]
    deadlock: DeadlockArgs,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    output: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GraphFormat {
    Dot,
    Svg,
    Json,
}

pub fn run(args: GraphArgs) -> ExitCode {
    crate::common::set_format(if args.format == GraphFormat::Json {
        crate::common::Format::Json
    } else {
        crate::common::Format::Text
    });
    if args.max_states > MAX_DRAWN {
        return crate::common::refuse(&format!(
            "--max-states {} is more than graph draws (at most {MAX_DRAWN} states); use `optimist check` for large models",
            args.max_states
        ));
    }
    let (src, model) = match args.model.load() {
        Ok(m) => m,
        Err(code) => return code,
    };
    let reduction = args.reduction.0;
    if args.trace {
        return trace(&args, &src, &model, reduction);
    }
    let graph = match optimist::state_graph(&model, reduction, Ignoring::Cpc, args.max_states) {
        Ok(g) => g,
        Err(optimist::GraphTooLarge::States(n)) => {
            let message = format!(
                "{}: the state graph has more than {n} states, too many to draw; `graph` is for small models (--max-states raises the bound, at most {MAX_DRAWN}; `optimist check` counts any size)",
                src.name
            );
            if args.format == GraphFormat::Json {
                let v = serde_json::json!({
                    "model": model.name,
                    "file": src.name,
                    "refused": message,
                });
                write(
                    &args,
                    serde_json::to_string_pretty(&v).expect("json") + "\n",
                );
            } else {
                write_err(&format!("error: {message}\n"));
            }
            return ExitCode::from(3);
        }
    };
    let text = match args.format {
        GraphFormat::Dot => optimist::graph_dot(&model, &graph),
        GraphFormat::Svg => optimist::graph_svg(&model, &graph),
        GraphFormat::Json => {
            let report = optimist::GraphReport::new(&model, &graph);
            serde_json::to_string_pretty(&report).expect("reports serialise") + "\n"
        }
    };
    if !write(&args, text) {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// Writes to `--output` or stdout; false when the file cannot be written.
fn write(args: &GraphArgs, text: String) -> bool {
    match &args.output {
        Some(path) => match std::fs::write(path, text) {
            Ok(()) => true,
            Err(e) => {
                write_err(&format!("error: cannot write {}: {e}\n", path.display()));
                false
            }
        },
        None => {
            write_out(&text);
            true
        }
    }
}

/// `--trace --format json`: the check's report, then the path the DOT
/// text draws.
#[derive(serde::Serialize)]
struct WithDrawing<'r> {
    #[serde(flatten)]
    report: &'r optimist::CheckReport,
    drawing: optimist::TraceDrawing,
}

/// `--trace`: the counterexample as a chart.
fn trace(
    args: &GraphArgs,
    src: &optimist::Source,
    model: &optimist::Model,
    reduction: Reduction,
) -> ExitCode {
    // The question `check` asks by default, deadlocks included: the chart
    // draws the counterexample `check` reports.
    let options = optimist::Options {
        reduction,
        deadlock: args.deadlock.on(),
        ..optimist::Options::default()
    };
    let outcome = optimist::check(model, &options, &mut |_| {});
    let mut report = optimist::CheckReport::new(model, &src.name, reduction, &outcome);
    // With no safety counterexample, the first lasso of the model's `ltl`
    // properties (full exploration, weak fairness, as `check` defaults).
    let mut lasso = None;
    if outcome.violation.is_none() && !model.ltl.is_empty() {
        let options = optimist::Options {
            reduction: crate::check::default_reduction(true),
            ..optimist::Options::default()
        };
        let all: Vec<usize> = (0..model.ltl.len()).collect();
        let (ltl, o) =
            crate::common::temporal(model, &options, &outcome, &all, optimist::Fairness::Weak);
        report.with_ltl(ltl);
        lasso = o.and_then(|o| {
            o.properties.into_iter().find_map(|p| {
                let l = p.lasso?;
                let name = &model.ltl[p.property].name;
                let message = if l.cycle.is_empty() {
                    format!("{name}: a run that ends, on which the property is false")
                } else {
                    format!(
                        "{name}: steps {} to {} repeat for ever; the property is false on the run",
                        l.stem.len() + 1,
                        l.stem.len() + l.cycle.len()
                    )
                };
                let trace = l.stem.into_iter().chain(l.cycle).collect();
                Some((
                    optimist::Violation {
                        problem: optimist::Problem::Deadlock,
                        initial: false,
                        trace,
                    },
                    message,
                ))
            })
        });
    }
    let Some(v) = outcome.violation.as_ref().or(lasso.as_ref().map(|l| &l.0)) else {
        write_err(&format!(
            "{}: no counterexample to draw: the check's verdict is {}\n",
            src.name, report.verdict
        ));
        return ExitCode::from(report.exit_code());
    };
    let message = match &lasso {
        Some((_, m)) => m.clone(),
        None => serde_json::to_value(&report)
            .ok()
            .and_then(|j| j["violation"]["message"].as_str().map(str::to_string))
            .unwrap_or_default(),
    };
    // A lasso stands in as a violation too; only `check`'s own deadlock
    // marks the last state deadlocked.
    let deadlock = lasso.is_none()
        && outcome
            .violation
            .as_ref()
            .is_some_and(|v| matches!(v.problem, optimist::Problem::Deadlock));
    let text = match args.format {
        GraphFormat::Json => {
            // The check's report, and the path the DOT text draws.
            let json = WithDrawing {
                report: &report,
                drawing: optimist::TraceDrawing::new(model, v, deadlock, &message),
            };
            serde_json::to_string_pretty(&json).expect("reports serialise") + "\n"
        }
        GraphFormat::Svg => optimist::chart_svg(model, v, &message),
        GraphFormat::Dot => optimist::trace_dot(model, v, deadlock, &message),
    };
    if !write(args, text) {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

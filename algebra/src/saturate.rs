//! Equality saturation of one goal with egg, under node, iteration and time limits.

use std::time::Duration;

use egg::{BackoffScheduler, Rewrite, Runner, StopReason};

use crate::lang::{Op, to_expr};
use crate::term::Term;

/// Resource limits of one saturation.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Maximum egg iterations.
    pub iterations: usize,
    /// Maximum e-nodes.
    pub nodes: usize,
    /// Wall-clock safety net; the node and iteration limits normally stop a
    /// run first, so results do not depend on the machine's speed.
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            iterations: 20,
            nodes: 4_000,
            time: Duration::from_secs(20),
        }
    }
}

/// The outcome of one saturation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Saturation {
    pub proved: bool,
    pub iterations: usize,
    pub nodes: usize,
    pub stop: String,
    /// egg's explanation of `lhs = rhs`, when requested and proved: a
    /// sequence of terms linked by rewrites, with shared congruence proofs.
    pub explanation: Option<Explained>,
}

const PROVED: &str = "proved";

/// Tries to show `lhs = rhs` with the rules.
pub(crate) fn saturate(
    lhs: &Term,
    rhs: &Term,
    rules: &[Rewrite<Op, ()>],
    limits: &Limits,
    explain: bool,
    protect: &[String],
) -> Saturation {
    let l = to_expr(lhs);
    let r = to_expr(rhs);
    let mut scheduler = BackoffScheduler::default();
    for p in protect {
        scheduler = scheduler.do_not_ban(p.as_str());
    }
    // Back-off scheduling keeps associativity and commutativity from
    // crowding out the other rules; egg's SimpleScheduler loses proofs here.
    let mut runner = Runner::<Op, ()>::default()
        .with_iter_limit(limits.iterations)
        .with_node_limit(limits.nodes)
        .with_time_limit(limits.time)
        .with_scheduler(scheduler);
    if explain {
        // The core replays whatever explanation egg gives; egg's search for
        // a shortest one costs more than replaying a longer one.
        runner = runner
            .with_explanations_enabled()
            .without_explanation_length_optimization();
    }
    let mut runner = runner
        .with_expr(&l)
        .with_expr(&r)
        .with_hook(|run| {
            if run.egraph.find(run.roots[0]) == run.egraph.find(run.roots[1]) {
                Err(PROVED.to_string())
            } else {
                Ok(())
            }
        })
        .run(rules.iter());
    let proved = runner.egraph.find(runner.roots[0]) == runner.egraph.find(runner.roots[1]);
    let stop = match &runner.stop_reason {
        Some(StopReason::Saturated) => "saturated".to_string(),
        Some(StopReason::IterationLimit(n)) => format!("iteration limit {n}"),
        Some(StopReason::NodeLimit(n)) => format!("node limit {n}"),
        Some(StopReason::TimeLimit(t)) => format!("time limit {t:.1}s"),
        Some(StopReason::Other(s)) => s.clone(),
        None => "not run".to_string(),
    };
    let explanation = if proved && explain {
        let ex = runner.explain_equivalence(&l, &r);
        Some(Explained(std::rc::Rc::new(ex.explanation_trees)))
    } else {
        None
    };
    Saturation {
        proved,
        iterations: runner.iterations.len(),
        nodes: runner.egraph.total_number_of_nodes(),
        stop,
        explanation,
    }
}

/// egg's explanation of a saturation; equal only to itself.
#[derive(Clone, Debug)]
pub(crate) struct Explained(pub std::rc::Rc<egg::TreeExplanation<Op>>);

impl PartialEq for Explained {
    fn eq(&self, o: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &o.0)
    }
}

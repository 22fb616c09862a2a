//! The search and the overlay of a reduction, written once for every
//! reduction that is an expander: the search runs a copy of it per worker,
//! and the overlay walks the full graph with one more. A reduction says
//! how to make its expander and what the outcome records of the run.

use super::contract::Explore;
use super::graph::{Overlay, StateGraph};
use super::outcome::{Outcome, Stats};
use super::search::{Expand, Watch};
use super::{Options, Reduction};
use crate::model::Model;

/// A reduction applied to a model, as the expander it searches with.
pub(crate) trait Expanding {
    /// The expander.
    type Expander<'a>: Expand + Send
    where
        Self: 'a;
    /// A fresh expander.
    fn expander(&self) -> Self::Expander<'_>;
    /// Whether the search runs on one worker whatever the options: where
    /// the expander is a cache the whole run shares, what it computes and
    /// reuses depends on the order of work.
    fn alone(&self) -> bool {
        false
    }
    /// Records in `outcome` what the search ran under, and what its
    /// `expanders` counted.
    fn record<'a>(&'a self, _outcome: &mut Outcome, _expanders: &[Self::Expander<'a>]) {}
}

impl<T: Expanding> Explore for T {
    fn search(
        &self,
        model: &Model,
        options: &Options,
        watch: &mut Option<Watch>,
        progress: &mut dyn FnMut(&Stats),
        graph: Option<&mut super::ltlgraph::Recorder>,
        quotient: Option<&crate::symmetry::Symmetry>,
    ) -> Outcome {
        // A watched search has one worker too: what a watch records and
        // narrows follows the order of the search.
        let workers = match (&options.cluster, &watch) {
            _ if self.alone() => 1,
            (_, Some(_)) => 1,
            (Some(c), None) => c.workers,
            (None, None) => options.workers().max(1),
        };
        let mut exps: Vec<_> = (0..workers).map(|_| self.expander()).collect();
        let mut o = super::search_with(model, options, watch, progress, &mut exps, graph, quotient);
        self.record(&mut o, &exps);
        o
    }

    fn overlay(&self, model: &Model, graph: &StateGraph, reduction: Reduction) -> Overlay {
        super::graph::walk(model, &mut self.expander(), reduction, graph)
    }
}

//! What symmetry detection found, as `classify` and `check` report it.

use std::fmt;

use serde::Serialize;

use crate::model::Model;
use crate::symmetry::{Analysis, Kind, Used};

/// The symmetry of a model: the one used, and what breaks the others.
#[derive(Clone, Debug, Serialize)]
pub struct SymmetryReport {
    /// The symmetry `check` stores orbits of, if any.
    pub found: Option<SymmetryRow>,
    /// What breaks the symmetry of each group of copies.
    pub broken: Vec<BrokenRow>,
    /// Under the symmetry found: per temporal property, whether it is
    /// checked over orbits (without fairness).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub temporal: Vec<TemporalRow>,
}

/// A temporal property under the symmetry found.
#[derive(Clone, Debug, Serialize)]
pub struct TemporalRow {
    /// The property's name.
    pub property: String,
    /// Whether every atom is symmetric, so that `check --fairness none`
    /// checks it over orbits.
    pub orbits: bool,
    /// Where not: the atom that tells the copies apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// A symmetry used.
#[derive(Clone, Debug, Serialize)]
pub struct SymmetryRow {
    /// `full` or `rotation`.
    pub kind: &'static str,
    /// The copies, as `teller0..teller1`.
    pub threads: String,
    /// How many copies.
    pub copies: usize,
    /// Whether each orbit is stored once (else the representatives are a
    /// heuristic: sound, an orbit may be stored more than once).
    pub exact: bool,
}

/// What breaks a group's symmetry.
#[derive(Clone, Debug, Serialize)]
pub struct BrokenRow {
    /// The copies.
    pub threads: String,
    /// The symmetry lost: `full` (rotations remain) or `rotation` (none
    /// remains).
    pub lost: &'static str,
    /// Why, in words.
    pub why: String,
    /// The line, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

impl SymmetryRow {
    /// The row of a symmetry a search used.
    pub fn of(u: &Used) -> SymmetryRow {
        SymmetryRow {
            kind: u.kind.name(),
            threads: u.threads.clone(),
            copies: u.copies,
            exact: u.exact,
        }
    }
}

impl fmt::Display for SymmetryRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            "full" => "any permutation of",
            _ => "the rotations of",
        };
        write!(
            f,
            "{} ({what} the {} copies {})",
            self.kind, self.copies, self.threads
        )?;
        if !self.exact {
            write!(f, "; representatives by a heuristic where copies tie")?;
        }
        Ok(())
    }
}

impl SymmetryReport {
    /// The report of `model`'s symmetry.
    pub fn new(model: &Model) -> SymmetryReport {
        SymmetryReport::of(model, &crate::symmetry::detect(model))
    }

    fn of(model: &Model, a: &Analysis) -> SymmetryReport {
        SymmetryReport {
            temporal: (model.ltl.iter().zip(&a.temporal))
                .map(|(p, b)| TemporalRow {
                    property: p.name.clone(),
                    orbits: b.is_none(),
                    why: b.as_ref().map(|b| b.why.clone()),
                })
                .collect(),
            found: a.symmetry.as_ref().map(|s| SymmetryRow::of(&s.used())),
            broken: (a.broken.iter())
                .map(|b| BrokenRow {
                    threads: b.threads.clone(),
                    lost: b.lost.name(),
                    why: b.why.clone(),
                    line: b.place.map(|p| p.1).filter(|&l| l > 0),
                })
                .collect(),
        }
    }
}

impl fmt::Display for SymmetryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.found {
            Some(s) => writeln!(
                f,
                "symmetry: {s}: `check` stores one state per orbit (`--symmetry off` stores every state)"
            )?,
            None if self.broken.is_empty() => writeln!(
                f,
                "symmetry: none (no thread body is run by two threads or more)"
            )?,
            None => writeln!(f, "symmetry: none")?,
        }
        for b in &self.broken {
            let lost = match b.lost {
                l if l == Kind::Full.name() => "full symmetry broken, rotations kept",
                _ => "no symmetry",
            };
            let at = b.line.map_or(String::new(), |l| format!("line {l}: "));
            writeln!(f, " {} ({lost}): {at}{}", b.threads, b.why)?;
        }
        for t in &self.temporal {
            match &t.why {
                None => writeln!(f, " ltl {}: over orbits (`--fairness none`)", t.property)?,
                Some(why) => writeln!(f, " ltl {}: on every state: {why}", t.property)?,
            }
        }
        Ok(())
    }
}

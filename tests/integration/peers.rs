//! The peer benchmark's families (`cargo bench --bench peers`) count the
//! same full state space in all three encodings: gcl under optimist,
//! Promela under SPIN (`-DNOREDUCE`, one core and `-DNCORE=2`), Murphi
//! under Rumur. Checked at each family's smallest size, with the
//! verifiers compiled unoptimised (compiling costs more than running here).

#[path = "../benches/peers/checkers.rs"]
mod checkers;
#[path = "../benches/peers/families.rs"]
mod families;

use std::path::Path;

use checkers::Opt;
use families::{FAMILIES, label};

use crate::tools;

const TOOLS: &[(&str, &str)] = &[("spin", "-V"), ("rumur", "--version"), ("gcc", "--version")];

#[test]
fn peer_families_count_the_same_states_in_gcl_promela_and_murphi() {
    let test = "peer_families_count_the_same_states_in_gcl_promela_and_murphi";
    if !tools::present(test, TOOLS) {
        return;
    }
    let dir = tools::scratch("peers");
    let bin = Path::new(env!("CARGO_BIN_EXE_optimist"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut differ = Vec::new();
    for family in FAMILIES {
        let params = family.sizes[0];
        let here = dir.join(family.name);
        let ours = checkers::optimist(
            bin,
            root,
            &here,
            family.gcl,
            params,
            &["--reduction", "none"],
        )
        .unwrap_or_else(|e| panic!("{} {}: {e}", family.name, label(params)))
        .states;
        // A family too small to measure anything would make this vacuous.
        assert!(ours > 1000, "{}: only {ours} states", family.name);
        let promela = (family.promela)(params);
        let murphi = (family.murphi)(params);
        let theirs = [
            (
                "SPIN",
                checkers::spin(&here.join("spin"), &promela, 1, ours, Opt::Quick)
                    .and_then(|s| s.run()),
            ),
            (
                "Rumur",
                checkers::rumur(&here.join("rumur"), &murphi, 1, Opt::Quick).and_then(|r| r.run()),
            ),
        ];
        for (checker, run) in theirs {
            let states = run
                .unwrap_or_else(|e| {
                    panic!("{} {} under {checker}: {e}", family.name, label(params))
                })
                .states;
            if states != ours {
                differ.push(format!(
                    "{} {}: optimist {ours}, {checker} {states}",
                    family.name,
                    label(params)
                ));
            }
        }
    }
    assert!(differ.is_empty(), "counts differ:\n{}", differ.join("\n"));
}

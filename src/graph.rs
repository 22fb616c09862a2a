//! Pictures of a small model: its state graph in DOT, JSON or SVG, with a
//! reduced search drawn over it, and a counterexample as a chart with one
//! column per thread.
//!
//! SVG is drawn without a system Graphviz: the DOT text is laid out by the
//! `layout-rs` crate (pure Rust, a Sugiyama-style layered layout with edge
//! crossing reduction, and it reads the DOT we write), and the chart is
//! written directly.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::explore::{Kind, StateGraph, Violation};
use crate::model::Model;
use crate::report::StateLayout;

/// The fill of a state the reduced search stores.
const STORED: &str = "#f6c85f";
/// The colour of the reduced search's steps.
const STEP: &str = "#c0392b";
/// How a deadlocked state is drawn (DOT attributes): red, filled, bold.
const DEADLOCK_STYLE: &str =
    "style=\"filled,bold\", fillcolor=\"#fde2e2\", color=\"#c0392b\", penwidth=3";
/// The line a deadlocked state carries, as `check` says it.
pub const DEADLOCK_LABEL: &str = "deadlock: no thread can move";

/// The deadlocked states of `g`: no transition leaves them, none goes
/// wrong there, and some thread has not ended (as `check` defines it).
pub fn deadlocked(model: &Model, g: &StateGraph) -> Vec<bool> {
    let mut moves = vec![false; g.states.len()];
    for e in &g.edges {
        moves[e.from] = true;
    }
    for v in &g.violations {
        moves[v.from] = true;
    }
    g.states
        .iter()
        .enumerate()
        .map(|(k, s)| !moves[k] && !model.all_ended(s))
        .collect()
}

/// `T0 A: acquire m[0]`: thread, control point and statement.
fn transition_label(model: &Model, k: usize) -> String {
    let tr = &model.transitions[k];
    let th = &model.threads[tr.thread as usize];
    format!(
        "{} {}: {}",
        th.name,
        th.points[tr.from as usize].name(),
        tr.text
    )
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Which edges of the full graph some reduced step follows.
fn on_steps(g: &StateGraph) -> Vec<bool> {
    let mut on = vec![false; g.edges.len()];
    if let Some(o) = &g.overlay {
        for step in &o.steps {
            for &e in &step.edges {
                on[e] = true;
            }
        }
    }
    on
}

/// One line saying what the picture shows.
pub fn graph_title(model: &Model, g: &StateGraph) -> String {
    let mut text = format!(
        "{}: {} states, {} transitions",
        model.name,
        g.states.len(),
        g.edges.len()
    );
    if !g.violations.is_empty() {
        text += &format!(", {} violating", g.violations.len());
    }
    let dead = deadlocked(model, g).iter().filter(|&&d| d).count();
    if dead > 0 {
        text += &format!(", {dead} deadlocked (red, bold: no thread can move)");
    }
    if let Some(o) = &g.overlay {
        let stored = o.stored.iter().filter(|&&s| s).count();
        text += &format!(
            "; {} stores {stored} (filled) in {} steps (red)",
            o.reduction.name(),
            o.steps.len()
        );
        if o.stopped {
            text += ", stopped at a violation";
        }
    }
    text
}

/// The state graph in Graphviz's DOT language.
pub fn graph_dot(model: &Model, g: &StateGraph) -> String {
    dot(model, g, false)
}

/// The colours of the threads' edges in the built-in SVG (no red: red is
/// the reduced search's and the violations').
const THREAD_COLOURS: [(&str, &str); 6] = [
    ("#1f77b4", "blue"),
    ("#2ca02c", "green"),
    ("#9467bd", "purple"),
    ("#8c564b", "brown"),
    ("#17becf", "cyan"),
    ("#7f7f7f", "grey"),
];

fn thread_colour(t: usize) -> (&'static str, &'static str) {
    THREAD_COLOURS[t % THREAD_COLOURS.len()]
}

/// The DOT text; `compact` for the built-in SVG: each state's box holds
/// only its name (the full state is its tooltip, added after layout), and
/// each edge is coloured by its thread instead of labelled (layout-rs
/// gives an edge's label a rank of its own, doubling the picture's
/// height), so that layout-rs draws a picture of readable size.
fn dot(model: &Model, g: &StateGraph, compact: bool) -> String {
    let dead = deadlocked(model, g);
    let mut out = String::new();
    out += &format!("digraph \"{}\" {{\n", quote(&model.name));
    out += &format!(
        "  graph [label=\"{}\", labelloc=t, fontname=\"monospace\"];\n",
        quote(&graph_title(model, g))
    );
    out += "  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
    out += "  edge [fontname=\"monospace\", fontsize=8];\n";
    for (k, _) in g.states.iter().enumerate() {
        let mut label = format!("s{k}");
        if !compact {
            for line in state_lines(model, g, k) {
                label += &format!("\\n{}", quote(&line));
            }
        }
        if dead[k] {
            label += &format!("\\n{DEADLOCK_LABEL}");
        }
        let stored = g.overlay.as_ref().is_some_and(|o| o.stored[k]);
        let style = if dead[k] {
            format!(", {DEADLOCK_STYLE}")
        } else if stored {
            format!(", style=filled, fillcolor=\"{STORED}\"")
        } else if k == 0 {
            ", style=bold".to_string()
        } else {
            String::new()
        };
        out += &format!("  s{k} [label=\"{}\"{style}];\n", quote_label(&label));
    }
    let on = on_steps(g);
    for (e, edge) in g.edges.iter().enumerate() {
        let thread = model.transitions[edge.transition].thread as usize;
        let style = if on[e] {
            format!(", color=\"{STEP}\", fontcolor=\"{STEP}\", penwidth=2")
        } else if compact {
            format!(", color=\"{}\"", thread_colour(thread).0)
        } else {
            String::new()
        };
        let label = if compact {
            String::new()
        } else {
            transition_label(model, edge.transition)
        };
        out += &format!(
            "  s{} -> s{} [label=\"{}\"{style}];\n",
            edge.from,
            edge.to,
            quote(&label)
        );
    }
    for (n, v) in g.violations.iter().enumerate() {
        out += &format!(
            "  bad{n} [label=\"{}\", shape=octagon, color=red, fontcolor=red];\n",
            violation_kind(v).name()
        );
        out += &format!(
            "  s{} -> bad{n} [label=\"{}\", color=red, fontcolor=red];\n",
            v.from,
            quote(&transition_label(model, v.transition))
        );
    }
    out += "}\n";
    out
}

/// The lines of state `k`'s box: the layout of the check's final states,
/// what changed since the state it was first reached from marked `*`.
fn state_lines(model: &Model, g: &StateGraph, k: usize) -> Vec<String> {
    let before = g.parent[k].map(|p| StateLayout::of(model, &g.states[p]));
    StateLayout::of(model, &g.states[k]).marked(before.as_ref())
}

/// A label whose `\n` are DOT line breaks and whose quotes are escaped.
fn quote_label(s: &str) -> String {
    s.replace('"', "\\\"")
}

fn violation_kind(v: &crate::explore::GraphViolation) -> Kind {
    Violation {
        problem: v.problem.clone(),
        initial: false,
        trace: Vec::new(),
    }
    .kind()
}

/// The state graph as an SVG picture, laid out by `layout-rs`: the
/// compact DOT (names in the boxes), each state's full text its tooltip,
/// scaled down to the page's width.
pub fn graph_svg(model: &Model, g: &StateGraph) -> String {
    let mut svg = dot_to_svg(&dot(model, g, true));
    let dead = deadlocked(model, g);
    for k in 0..g.states.len() {
        let mut tip = format!("s{k}");
        for line in state_lines(model, g, k) {
            tip += &format!("\n{line}");
        }
        if dead[k] {
            tip += &format!("\n{DEADLOCK_LABEL}");
        }
        // The box's name is the first line of its text: the title goes
        // just before it, the text element's first child.
        let name = format!("dy=\"1.0em\">s{k}</tspan>");
        if let Some(at) = svg.find(&name) {
            let open = svg[..at].rfind("<tspan").unwrap_or(at);
            svg.insert_str(open, &format!("<title>{}</title>", xml(&tip)));
        }
    }
    let threads: Vec<String> = model
        .threads
        .iter()
        .enumerate()
        .map(|(t, th)| format!("{} {}", th.name, thread_colour(t).1))
        .collect();
    let mut legend = vec![graph_title(model, g)];
    legend.push(format!(
        "edges by thread: {}; a state's box holds its name, its state is the tooltip",
        threads.join(", ")
    ));
    with_legend(&svg, &legend)
}

/// `svg` moved down below `lines` of legend, wide enough for them.
fn with_legend(svg: &str, lines: &[String]) -> String {
    const LINE: f64 = 16.0;
    let attr = |name: &str| -> Option<f64> {
        let head = &svg[svg.find("<svg ")?..];
        let head = &head[..head.find('>')?];
        let at = head.find(&format!(" {name}=\""))? + name.len() + 3;
        head[at..at + head[at..].find('"')?].parse().ok()
    };
    let (Some(w), Some(h), Some(open), Some(style_end), Some(close)) = (
        attr("width"),
        attr("height"),
        svg.find("<svg "),
        svg.find("</style>"),
        svg.rfind("</svg>"),
    ) else {
        return svg.to_string();
    };
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let dy = LINE * lines.len() as f64 + 8.0;
    let (w, h) = (w.max(longest as f64 * 7.0 + 20.0), h + dy);
    let tag_end = open + svg[open..].find('>').expect("an svg tag");
    let style_end = style_end + "</style>".len();
    let mut out = String::with_capacity(svg.len() + 512);
    out += &svg[..open];
    out += &format!(
        "<svg style=\"max-width: 100%; height: auto\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\">"
    );
    out += &svg[tag_end + 1..style_end];
    for (i, line) in lines.iter().enumerate() {
        out += &format!(
            "\n<text x=\"10\" y=\"{}\" font-family=\"monospace\" font-size=\"11\">{}</text>",
            LINE * (i + 1) as f64,
            xml(line)
        );
    }
    out += &format!("\n<g transform=\"translate(0, {dy})\">");
    out += &svg[style_end..close];
    out += "</g>\n";
    out += &svg[close..];
    out
}

/// Lays out a DOT text and draws it as SVG.
pub fn dot_to_svg(dot: &str) -> String {
    use layout::backends::svg::SVGWriter;
    use layout::gv::{DotParser, GraphBuilder};
    let mut parser = DotParser::new(dot);
    let ast = parser
        .process()
        .expect("optimist writes DOT that layout-rs reads");
    let mut builder = GraphBuilder::new();
    builder.visit_graph(&ast);
    let mut graph = builder.get();
    let mut svg = SVGWriter::new();
    graph.do_it(false, false, false, &mut svg);
    fit_to_page(&sorted_style(svg.finalize()))
}

/// The picture keeps its size where there is room, and shrinks to the
/// page's width where there is not (its `viewBox` keeps the proportions).
fn fit_to_page(svg: &str) -> String {
    svg.replacen(
        "<svg width=",
        "<svg style=\"max-width: 100%; height: auto\" width=",
        1,
    )
}

/// layout-rs writes its font classes in hash-map order; sorting the lines
/// of the `<style>` block makes the SVG the same on every run.
fn sorted_style(svg: String) -> String {
    let (Some(a), Some(b)) = (svg.find("<style>\n"), svg.find("</style>")) else {
        return svg;
    };
    let a = a + "<style>\n".len();
    if b < a {
        return svg;
    }
    let mut lines: Vec<&str> = svg[a..b].lines().collect();
    lines.sort_unstable();
    let mut out = String::with_capacity(svg.len());
    out.push_str(&svg[..a]);
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&svg[b..]);
    out
}

/// The state graph as JSON: states, edges, violations, and the reduced
/// search's stored states and steps.
#[derive(Serialize)]
pub struct GraphReport {
    model: String,
    reduction: &'static str,
    states: usize,
    transitions: usize,
    stored: Option<usize>,
    steps: Option<usize>,
    /// Deadlocked states: no thread can move, some thread has not ended.
    deadlocks: usize,
    nodes: Vec<NodeReport>,
    edges: Vec<EdgeReport>,
    violations: Vec<BadReport>,
}

#[derive(Serialize)]
struct NodeReport {
    id: usize,
    stored: Option<bool>,
    /// A deadlocked state, drawn red and bold.
    deadlock: bool,
    /// `deadlock: no thread can move` on a deadlocked state.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'static str>,
    state: Map<String, Value>,
}

#[derive(Serialize)]
struct EdgeReport {
    from: usize,
    to: usize,
    thread: String,
    label: Option<String>,
    line: usize,
    statement: String,
    /// On a step of the reduced search.
    reduced: Option<bool>,
}

#[derive(Serialize)]
struct BadReport {
    from: usize,
    kind: &'static str,
    thread: String,
    line: usize,
    statement: String,
}

impl GraphReport {
    /// The report of `g`.
    pub fn new(model: &Model, g: &StateGraph) -> GraphReport {
        let on = on_steps(g);
        let o = g.overlay.as_ref();
        let dead = deadlocked(model, g);
        GraphReport {
            deadlocks: dead.iter().filter(|&&d| d).count(),
            model: model.name.clone(),
            reduction: o.map_or("none", |o| o.reduction.name()),
            states: g.states.len(),
            transitions: g.edges.len(),
            stored: o.map(|o| o.stored.iter().filter(|&&s| s).count()),
            steps: o.map(|o| o.steps.len()),
            nodes: g
                .states
                .iter()
                .enumerate()
                .map(|(k, s)| NodeReport {
                    id: k,
                    stored: o.map(|o| o.stored[k]),
                    deadlock: dead[k],
                    note: dead[k].then_some(DEADLOCK_LABEL),
                    state: crate::report::json_state(model, s),
                })
                .collect(),
            edges: g
                .edges
                .iter()
                .enumerate()
                .map(|(e, edge)| {
                    let tr = &model.transitions[edge.transition];
                    EdgeReport {
                        from: edge.from,
                        to: edge.to,
                        thread: model.threads[tr.thread as usize].name.clone(),
                        label: model.point_of(tr).label.clone(),
                        line: tr.line,
                        statement: tr.text.clone(),
                        reduced: o.map(|_| on[e]),
                    }
                })
                .collect(),
            violations: g
                .violations
                .iter()
                .map(|v| {
                    let tr = &model.transitions[v.transition];
                    BadReport {
                        from: v.from,
                        kind: violation_kind(v).name(),
                        thread: model.threads[tr.thread as usize].name.clone(),
                        line: tr.line,
                        statement: tr.text.clone(),
                    }
                })
                .collect(),
        }
    }
}

/// Text that is safe inside SVG.
fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A counterexample as a message-sequence chart in SVG: one column per
/// thread, one row per transition (its control point, statement and the
/// variables it changed), a dashed arrow where control passes from one
/// thread to another, and the violation in red at the end.
pub fn chart_svg(model: &Model, v: &Violation, message: &str) -> String {
    const COL: usize = 250;
    const ROW: usize = 40;
    const TOP: usize = 70;
    let n = model.threads.len();
    let width = COL * n + 40;
    let height = TOP + ROW * (v.trace.len() + 1) + 40;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"11\">\n"
    );
    out += &format!("<rect width=\"{width}\" height=\"{height}\" fill=\"white\"/>\n");
    out += &format!(
        "<text x=\"20\" y=\"20\" font-size=\"13\">{}: counterexample, {} transitions</text>\n",
        xml(&model.name),
        v.trace.len()
    );
    let x = |t: usize| 20 + COL * t + COL / 2;
    let bottom = TOP + ROW * (v.trace.len() + 1);
    for (t, th) in model.threads.iter().enumerate() {
        out += &format!(
            "<rect x=\"{}\" y=\"32\" width=\"{}\" height=\"22\" fill=\"#eef\" stroke=\"#446\"/>\n<text x=\"{}\" y=\"47\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>\n",
            x(t) - 60,
            120,
            x(t),
            xml(&th.name)
        );
        out += &format!(
            "<line x1=\"{0}\" y1=\"54\" x2=\"{0}\" y2=\"{bottom}\" stroke=\"#99a\" stroke-dasharray=\"2,3\"/>\n",
            x(t)
        );
    }
    let mut before = model.init.clone();
    let mut last: Option<(usize, usize)> = None;
    for (i, step) in v.trace.iter().enumerate() {
        let tr = &model.transitions[step.transition];
        let t = tr.thread as usize;
        let y = TOP + ROW * i;
        let bad = step.state.is_none() || i + 1 == v.trace.len();
        let (fill, stroke) = if bad {
            ("#fdd", "#c0392b")
        } else {
            ("#fff", "#446")
        };
        if let Some((lt, ly)) = last
            && lt != t
        {
            out += &format!(
                "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\" stroke-dasharray=\"4,3\" marker-end=\"url(#arrow)\"/>\n",
                x(lt),
                ly + 26,
                x(t),
                y + 2
            );
        }
        let point = model.threads[t].points[tr.from as usize].name();
        let changes = match &step.state {
            Some(after) => (model.first_var()..after.len())
                .filter(|&k| after[k] != before[k])
                .map(|k| format!("{}={}", model.slots[k].name, model.show_value(k, after[k])))
                .collect::<Vec<_>>()
                .join(" "),
            None => "(does not complete)".to_string(),
        };
        out += &format!(
            "<rect x=\"{}\" y=\"{y}\" width=\"{}\" height=\"30\" rx=\"4\" fill=\"{fill}\" stroke=\"{stroke}\"/>\n",
            x(t) - COL / 2 + 8,
            COL - 16
        );
        out += &format!(
            "<text x=\"{}\" y=\"{}\">{}. {}: {}</text>\n",
            x(t) - COL / 2 + 14,
            y + 12,
            i + 1,
            xml(&point),
            xml(&tr.text)
        );
        out += &format!(
            "<text x=\"{}\" y=\"{}\" fill=\"#555\">{}</text>\n",
            x(t) - COL / 2 + 14,
            y + 25,
            xml(&changes)
        );
        if let Some(after) = &step.state {
            before = after.clone();
        }
        last = Some((t, y));
    }
    out += &format!(
        "<text x=\"20\" y=\"{}\" fill=\"#c0392b\">{}</text>\n",
        TOP + ROW * v.trace.len() + 16,
        xml(message)
    );
    out += "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#888\"/></marker></defs>\n";
    out += "</svg>\n";
    out
}

/// A counterexample drawn as a path of states, the JSON twin of
/// [`trace_dot`]: one node per state from the initial one, one edge per
/// transition, the deadlocked last state marked.
#[derive(Serialize)]
pub struct TraceDrawing {
    nodes: Vec<TraceNode>,
    edges: Vec<TraceEdge>,
    /// What the counterexample shows, in words.
    end: String,
}

#[derive(Serialize)]
struct TraceNode {
    id: usize,
    /// The deadlocked state where the counterexample ends.
    deadlock: bool,
    /// `deadlock: no thread can move` on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'static str>,
    /// The state; none after a transition that does not complete.
    state: Option<Map<String, Value>>,
}

#[derive(Serialize)]
struct TraceEdge {
    from: usize,
    to: usize,
    thread: String,
    line: usize,
    statement: String,
}

impl TraceDrawing {
    /// The drawing of `v`; `deadlock` when it ends in a deadlock, `end`
    /// what it shows.
    pub fn new(model: &Model, v: &Violation, deadlock: bool, end: &str) -> TraceDrawing {
        let last = v.trace.len();
        let mut nodes = vec![TraceNode {
            id: 0,
            deadlock: deadlock && last == 0,
            note: (deadlock && last == 0).then_some(DEADLOCK_LABEL),
            state: Some(crate::report::json_state(model, &model.init)),
        }];
        let mut edges = Vec::new();
        for (i, step) in v.trace.iter().enumerate() {
            let dead = deadlock && i + 1 == last;
            nodes.push(TraceNode {
                id: i + 1,
                deadlock: dead,
                note: dead.then_some(DEADLOCK_LABEL),
                state: step
                    .state
                    .as_ref()
                    .map(|s| crate::report::json_state(model, s)),
            });
            let tr = &model.transitions[step.transition];
            edges.push(TraceEdge {
                from: i,
                to: i + 1,
                thread: model.threads[tr.thread as usize].name.clone(),
                line: tr.line,
                statement: tr.text.clone(),
            });
        }
        TraceDrawing {
            nodes,
            edges,
            end: end.to_string(),
        }
    }
}

/// A counterexample in DOT: the states it passes, from the initial one
/// (bold), each with what its transition changed marked `*`, and its end:
/// a deadlocked state red and bold with `deadlock: no thread can move`, a
/// transition that does not complete to a red `violation` box.
pub fn trace_dot(model: &Model, v: &Violation, deadlock: bool, end: &str) -> String {
    let mut out = String::new();
    out += &format!("digraph \"{}\" {{\n", quote(&model.name));
    out += &format!(
        "  graph [label=\"{}\", labelloc=t, fontname=\"monospace\"];\n",
        quote(&format!(
            "{}: counterexample, {} transitions; {end}",
            model.name,
            v.trace.len()
        ))
    );
    out += "  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
    out += "  edge [fontname=\"monospace\", fontsize=8];\n";
    let last = v.trace.len();
    let mut before: Option<StateLayout> = None;
    let mut states: Vec<Option<&[i64]>> = vec![Some(&model.init)];
    states.extend(v.trace.iter().map(|st| st.state.as_deref()));
    for (k, s) in states.iter().enumerate() {
        let Some(s) = s else {
            out += &format!(
                "  s{k} [label=\"violation: the transition does not complete\", color=\"#c0392b\", fontcolor=\"#c0392b\"];\n"
            );
            continue;
        };
        let layout = StateLayout::of(model, s);
        let mut label = format!("s{k}");
        for line in layout.marked(before.as_ref()) {
            label += &format!("\\n{}", quote(&line));
        }
        let dead = deadlock && k == last;
        if dead {
            label += &format!("\\n{DEADLOCK_LABEL}");
        }
        let style = if dead {
            format!(", {DEADLOCK_STYLE}")
        } else if k == 0 {
            ", style=bold".to_string()
        } else {
            String::new()
        };
        out += &format!("  s{k} [label=\"{}\"{style}];\n", quote_label(&label));
        before = Some(layout);
    }
    for (i, step) in v.trace.iter().enumerate() {
        out += &format!(
            "  s{i} -> s{} [label=\"{}. {}\"];\n",
            i + 1,
            i + 1,
            quote(&transition_label(model, step.transition))
        );
    }
    out += "}\n";
    out
}

//! Go to definition and find references, by name at the syntax level
//! (see [`super::names`]).

use lsp_types::{Location, Position, Uri};

use super::document::Document;

/// Where the name at `pos` is declared.
pub(crate) fn definition(uri: &Uri, doc: &Document, pos: Position) -> Option<Location> {
    let names = doc.names.as_ref()?;
    let k = names.decl_at(doc.lines().offset(pos))?;
    Some(Location::new(
        uri.clone(),
        doc.lines().range(names.decls[k].span),
    ))
}

/// Every place that names what the name at `pos` names.
pub(crate) fn references(
    uri: &Uri,
    doc: &Document,
    pos: Position,
    with_declaration: bool,
) -> Vec<Location> {
    let Some(names) = doc.names.as_ref() else {
        return Vec::new();
    };
    let Some(k) = names.decl_at(doc.lines().offset(pos)) else {
        return Vec::new();
    };
    let declared = names.decls[k].span;
    names
        .references(k)
        .into_iter()
        .filter(|s| with_declaration || s.start != declared.start)
        .map(|s| Location::new(uri.clone(), doc.lines().range(s)))
        .collect()
}

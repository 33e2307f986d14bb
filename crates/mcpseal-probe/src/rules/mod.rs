//! The registry: every rule, in id order. Ids are permanent — a retired rule leaves a hole, so
//! `--skip` lists in other people's CI keep meaning what they meant.
//!
//! mcp-stateless correspondence: `SEAL0NN` is `MCP0NN` for 001–021 (`RuleInfo::anchor_id`).

use crate::rule::Rule;

/// The removed methods rule `id` judges with `removed::removed_method`, whose fresh-process
/// re-asks may be asked ahead (`--jobs`); empty for every other rule.
pub(crate) fn fresh_reasks(id: &str) -> Vec<(&'static str, serde_json::Value)> {
    match id {
        "SEAL006" => seal006::probes(),
        "SEAL007" => seal007::probes(),
        "SEAL008" => seal008::probes(),
        "SEAL021" => seal021::probes(),
        _ => Vec::new(),
    }
}

mod modern_http;
mod seal001;
mod seal002;
mod seal003;
mod seal004;
mod seal005;
mod seal006;
mod seal007;
mod seal008;
mod seal009;
mod seal010;
mod seal011;
mod seal012;
mod seal013;
mod seal014;
mod seal015;
mod seal016;
mod seal017;
mod seal018;
mod seal019;
mod seal020;
mod seal021;
mod seal022;
mod seal023;
mod seal024;
mod seal025;
mod seal026;
mod seal027;
mod seal030;
mod seal031;
mod seal032;
mod seal033;
mod seal034;
mod seal035;
mod seal036;
mod seal037;
mod seal038;
mod seal039;
mod seal040;
mod seal041;
mod seal042;
mod seal043;
mod seal044;
mod seal045;
mod seal046;

/// Every rule, in id order.
pub static REGISTRY: &[&Rule] = &[
    &seal001::SEAL001,
    &seal002::SEAL002,
    &seal003::SEAL003,
    &seal004::SEAL004,
    &seal005::SEAL005,
    &seal006::SEAL006,
    &seal007::SEAL007,
    &seal008::SEAL008,
    &seal009::SEAL009,
    &seal010::SEAL010,
    &seal011::SEAL011,
    &seal012::SEAL012,
    &seal013::SEAL013,
    &seal014::SEAL014,
    &seal015::SEAL015,
    &seal016::SEAL016,
    &seal017::SEAL017,
    &seal018::SEAL018,
    &seal019::SEAL019,
    &seal020::SEAL020,
    &seal021::SEAL021,
    &seal022::SEAL022,
    &seal023::SEAL023,
    &seal024::SEAL024,
    &seal025::SEAL025,
    &seal026::SEAL026,
    &seal027::SEAL027,
    &seal030::SEAL030,
    &seal031::SEAL031,
    &seal032::SEAL032,
    &seal033::SEAL033,
    &seal034::SEAL034,
    &seal035::SEAL035,
    &seal036::SEAL036,
    &seal037::SEAL037,
    &seal038::SEAL038,
    &seal039::SEAL039,
    &seal040::SEAL040,
    &seal041::SEAL041,
    &seal042::SEAL042,
    &seal043::SEAL043,
    &seal044::SEAL044,
    &seal045::SEAL045,
    &seal046::SEAL046,
];

//! Renderers for a [`Report`]: human (rustc-like, with the source line and a caret), JSON
//! (the stable contract of PRODUCT.md §2), SARIF 2.1.0 and GitHub workflow annotations.

pub mod github;
mod human;
mod json;
mod sarif;

pub use github::github;
pub use human::human;
pub use json::json;
pub use sarif::sarif;

use super::Report;

/// Output formats of `vgsupp check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// For people.
    #[default]
    Human,
    /// The JSON contract.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// GitHub Actions workflow commands.
    Github,
}

/// Render `report` in `format`; `color` only affects [`Format::Human`].
#[must_use]
pub fn render(report: &Report, format: Format, color: bool) -> String {
    match format {
        Format::Human => human(report, color),
        Format::Json => json(report),
        Format::Sarif => sarif(report),
        Format::Github => github(report),
    }
}

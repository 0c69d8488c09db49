//! Renderers for a [`Report`]: human (rustc-like, with the source line and a caret), JSON
//! (the stable contract of PRODUCT.md §2), SARIF 2.1.0, GitHub workflow annotations and
//! GitLab Code Quality. SARIF, GitHub and GitLab take any [`Diagnostic`](super::Diagnostic)s: `gate` renders
//! its findings through them too.

pub mod github;
pub mod gitlab;
mod human;
mod json;
pub mod sarif;

pub use github::github;
pub use gitlab::gitlab;
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
    /// GitLab Code Quality JSON.
    Gitlab,
}

/// Render `report` in `format`; `color` only affects [`Format::Human`].
#[must_use]
pub fn render(report: &Report, format: Format, color: bool) -> String {
    match format {
        Format::Human => human(report, color),
        Format::Json => json(report),
        Format::Sarif => sarif(report),
        Format::Github => github(report),
        Format::Gitlab => gitlab(&report.diagnostics),
    }
}

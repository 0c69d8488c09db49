//! Today's date, read here at the edge (the library takes it as a parameter): the
//! system clock in UTC, or `VGSUPP_TODAY=YYYY-MM-DD` (for reproducible runs and tests).

use anyhow::{Context as _, Result, bail};

use vgsupp::date::Date;

/// Today.
pub fn today() -> Result<Date> {
    if let Some(v) = std::env::var_os("VGSUPP_TODAY") {
        let text = v.to_string_lossy();
        return text
            .parse()
            .with_context(|| format!("invalid VGSUPP_TODAY `{text}`"));
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .context("the system clock is before 1970")?
        .as_secs();
    let days = i64::try_from(secs / 86_400).context("the system clock is out of range")?;
    match Date::from_unix_days(days) {
        Some(d) => Ok(d),
        None => bail!("the system clock is out of range"),
    }
}

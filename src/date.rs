//! Calendar dates (`YYYY-MM-DD`) for the sidecar's `created`, `expires` and `seen` fields.
//!
//! The library never reads the clock: "today" is always a parameter, taken at the command
//! line's edge ([`Date::from_unix_days`] of the system time there). Dates are proleptic
//! Gregorian, years 1–9999, compared and offset by whole days.

use std::fmt;
use std::str::FromStr;

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

/// Why a date string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a date (expected YYYY-MM-DD{why})")]
pub struct DateError {
    /// The text as given.
    pub text: String,
    /// A precise reason, with a leading `; `, or empty.
    why: &'static str,
}

impl Date {
    /// The date `year-month-day`, if it exists (years 1–9999).
    #[must_use]
    pub const fn new(year: u16, month: u8, day: u8) -> Option<Self> {
        if year == 0 || year > 9999 || month == 0 || month > 12 {
            return None;
        }
        if day == 0 || day > days_in_month(year, month) {
            return None;
        }
        Some(Self { year, month, day })
    }

    /// The year.
    #[must_use]
    pub const fn year(self) -> u16 {
        self.year
    }

    /// The month, 1–12.
    #[must_use]
    pub const fn month(self) -> u8 {
        self.month
    }

    /// The day of the month, 1–31.
    #[must_use]
    pub const fn day(self) -> u8 {
        self.day
    }

    /// Days since 1970-01-01 (negative before it).
    #[must_use]
    pub fn unix_days(self) -> i64 {
        // Howard Hinnant's days_from_civil: eras of 400 years, years starting in March so
        // that the leap day is the last day of the year.
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01, if it lies in years 1–9999.
    #[must_use]
    pub fn from_unix_days(days: i64) -> Option<Self> {
        let z = days.checked_add(719_468)?;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Self::new(
            u16::try_from(year).ok()?,
            u8::try_from(month).ok()?,
            u8::try_from(day).ok()?,
        )
    }

    /// This date moved by `days` (negative: earlier), if the result lies in years 1–9999.
    #[must_use]
    pub fn add_days(self, days: i64) -> Option<Self> {
        Self::from_unix_days(self.unix_days().checked_add(days)?)
    }

    /// Whole days from `self` to `other` (negative when `other` is earlier).
    #[must_use]
    pub fn days_until(self, other: Self) -> i64 {
        other.unix_days() - self.unix_days()
    }
}

const fn is_leap(year: u16) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

const fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 31,
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl FromStr for Date {
    type Err = DateError;

    /// Exactly `YYYY-MM-DD` (ASCII digits, zero-padded), a date that exists.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |why| DateError {
            text: s.to_owned(),
            why,
        };
        let b = s.as_bytes();
        let shape = b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
        if !shape {
            return Err(err(""));
        }
        let num = |r: std::ops::Range<usize>| {
            b[r].iter().fold(0_u16, |n, c| n * 10 + u16::from(c - b'0'))
        };
        let (year, month, day) = (num(0..4), num(5..7), num(8..10));
        let (Ok(month), Ok(day)) = (u8::try_from(month), u8::try_from(day)) else {
            return Err(err("; no such day"));
        };
        Self::new(year, month, day).ok_or_else(|| err("; no such day"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(s: &str) -> Date {
        s.parse().expect("date")
    }

    #[test]
    fn parses_only_real_dates() {
        assert_eq!(d("2026-11-30").to_string(), "2026-11-30");
        assert_eq!(d("2024-02-29").day(), 29);
        for bad in [
            "2026-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-04-31",
            "0000-01-01",
            "2026-1-01",
            "2026-11-30T00:00:00",
            " 2026-11-30",
            "2026/11/30",
            "",
            "２０２６-11-30",
        ] {
            assert!(bad.parse::<Date>().is_err(), "{bad}");
        }
        let e = "2026-02-30".parse::<Date>().expect_err("no such day");
        assert_eq!(
            e.to_string(),
            "`2026-02-30` is not a date (expected YYYY-MM-DD; no such day)"
        );
    }

    #[test]
    fn unix_days_known_points() {
        assert_eq!(d("1970-01-01").unix_days(), 0);
        assert_eq!(d("2000-03-01").unix_days(), 11_017);
        assert_eq!(Date::from_unix_days(20_000), Some(d("2024-10-04")));
        assert_eq!(d("2026-11-30").add_days(90), Some(d("2027-02-28")));
        assert_eq!(d("2026-11-30").days_until(d("2026-12-14")), 14);
        assert_eq!(Date::from_unix_days(i64::MAX), None);
        assert_eq!(d("9999-12-31").add_days(1), None);
        assert_eq!(d("0001-01-01").add_days(-1), None);
    }

    proptest! {
        #[test]
        fn days_round_trip(days in -719_162_i64..2_932_896) {
            let date = Date::from_unix_days(days).expect("in range");
            prop_assert_eq!(date.unix_days(), days);
            prop_assert_eq!(date.to_string().parse::<Date>(), Ok(date));
            let next = date.add_days(1);
            if let Some(n) = next {
                prop_assert!(n > date);
            }
        }
    }
}

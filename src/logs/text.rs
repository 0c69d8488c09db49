//! Text logs (see mod docs).

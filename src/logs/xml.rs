//! XML logs (see mod docs).

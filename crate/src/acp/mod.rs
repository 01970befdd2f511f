//! The Agent Client Protocol (ACP): its wire types ([`protocol`]).

pub mod protocol;

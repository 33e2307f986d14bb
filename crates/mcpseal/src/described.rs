//! The one trait every workflow error implements, so the binary maps any of them to the error
//! document in one place.

/// An error of a workflow, as the error document states it: a kind for machines, the message
/// and a hint for people. Every workflow error type implements it, so the binary maps any of
/// them to exit 2 and `{"schemaVersion": 1, "error": …}` in one place.
pub trait Described: std::error::Error {
    /// The error as the document's `error` object (`message` is the `Display` text).
    fn body(&self) -> mcpseal_report::ErrorBody;
}

/// `Described` for the workflow errors of `call`, `guard` and `replay`: each is a usage-class
/// refusal before or instead of a verdict, stated with its own hint.
macro_rules! described_as_usage {
    ($($ty:ty),* $(,)?) => {$(
        impl Described for $ty {
            fn body(&self) -> mcpseal_report::ErrorBody {
                mcpseal_report::ErrorBody {
                    kind: mcpseal_report::ErrorKind::Usage,
                    message: self.to_string(),
                    hint: Some(self.hint().to_string()),
                }
            }
        }
    )*};
}

described_as_usage!(
    crate::call::CallError,
    crate::guard::GuardError,
    crate::guard::HostConfigError,
    crate::replay::ReplayError,
);

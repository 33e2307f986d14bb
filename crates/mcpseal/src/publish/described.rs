//! The publishing workflows' errors as the error document states them: each maps to a kind, its
//! message and its hint, so the binary handles them like every other workflow's (one mapping to
//! exit 2 and `{"schemaVersion": 1, "error": …}`).

use mcpseal_report::{ErrorBody, ErrorKind};

use super::card::{CardCheckError, CardEmitError};
use super::registry::{RegistryReadError, ServerJsonWorkflowError};
use super::verify::RegistryVerifyError;
use crate::described::Described;

fn body(e: &impl std::error::Error, kind: ErrorKind, hint: &str) -> ErrorBody {
    ErrorBody {
        kind,
        message: e.to_string(),
        hint: Some(hint.to_owned()),
    }
}

impl ServerJsonWorkflowError {
    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ServerJsonWorkflowError::Lock(e) => e.kind(),
            ServerJsonWorkflowError::Read { .. } | ServerJsonWorkflowError::ServerJson { .. } => {
                ErrorKind::BadInput
            }
            ServerJsonWorkflowError::Block(_) => ErrorKind::BadLock,
            ServerJsonWorkflowError::NoMcpSurfaceHash(_) => ErrorKind::Usage,
            ServerJsonWorkflowError::Write { .. } => ErrorKind::Write,
        }
    }
}

impl Described for ServerJsonWorkflowError {
    fn body(&self) -> ErrorBody {
        body(self, self.kind(), self.hint())
    }
}

impl RegistryReadError {
    /// What kind of trouble, for the error document: a registry that does not answer is
    /// unreachable, one that answers something else than the v0.1 API untrustworthy.
    pub fn kind(&self) -> ErrorKind {
        match self {
            RegistryReadError::Client(_) | RegistryReadError::Unreachable { .. } => {
                ErrorKind::Unreachable
            }
            RegistryReadError::BadAnswer { .. } => ErrorKind::Untrustworthy,
        }
    }
}

impl Described for RegistryReadError {
    fn body(&self) -> ErrorBody {
        body(self, self.kind(), self.hint())
    }
}

impl RegistryVerifyError {
    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            RegistryVerifyError::Registry(e) => e.kind(),
            RegistryVerifyError::NotFound(_) | RegistryVerifyError::Claim { .. } => {
                ErrorKind::BadInput
            }
        }
    }
}

impl Described for RegistryVerifyError {
    fn body(&self) -> ErrorBody {
        body(self, self.kind(), self.hint())
    }
}

impl CardEmitError {
    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            CardEmitError::Input(e) => e.kind(),
            CardEmitError::Emit(_) | CardEmitError::Invalid(_) => ErrorKind::BadInput,
        }
    }
}

impl Described for CardEmitError {
    fn body(&self) -> ErrorBody {
        body(self, self.kind(), self.hint())
    }
}

impl CardCheckError {
    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            CardCheckError::BadUrl(_) => ErrorKind::Usage,
            CardCheckError::Client(_) => ErrorKind::Unreachable,
        }
    }
}

impl Described for CardCheckError {
    fn body(&self) -> ErrorBody {
        body(self, self.kind(), self.hint())
    }
}

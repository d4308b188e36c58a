//! linecast's HTTP machinery, the part of HTTP that is not a route: the
//! spec's error shape and the mapping of every domain error to it
//! (`error`), query parameters (`params`), the route table's row type
//! (`endpoint`), the read pipeline that renders a body once per data
//! generation and serves its bytes (`responses`), the bodies that are more
//! than JSON (`presentation`), the body deadline (`stall`), the
//! Prometheus metrics (`metrics`), which client a request comes from
//! (`client_address`) and where a sign-in may come from (`sign_in_origin`). The shell (`linecast-api`) owns the
//! table's rows, the handlers, the gate and the wiring.

pub mod client_address;
pub mod endpoint;
pub mod error;
pub mod metrics;
pub mod params;
pub mod presentation;
pub mod responses;
pub mod sign_in_origin;
pub mod stall;

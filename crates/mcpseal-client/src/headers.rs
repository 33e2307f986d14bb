//! HTTP header lists: the `(name, value)` pairs mcpseal builds and the [`Header`]s it records.
//! Names are compared case-insensitively everywhere, as HTTP says.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::exchange::Header;

/// Response headers as recorded (lossy UTF-8 values, wire-case names).
pub(crate) fn headers_of(map: &HeaderMap) -> Vec<Header> {
    map.iter()
        .map(|(k, v)| Header {
            name: k.as_str().to_owned(),
            value: String::from_utf8_lossy(v.as_bytes()).into_owned(),
        })
        .collect()
}

/// Sets `name` to `value`, replacing every header of that name.
pub(crate) fn set_header(list: &mut Vec<(String, String)>, name: &str, value: String) {
    list.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    list.push((name.to_owned(), value));
}

/// Pairs as recorded headers.
pub(crate) fn recorded(list: &[(String, String)]) -> Vec<Header> {
    list.iter()
        .map(|(n, v)| Header {
            name: n.clone(),
            value: v.clone(),
        })
        .collect()
}

/// Pairs as a reqwest header map; the message names the header that is not valid.
pub(crate) fn to_header_map(list: &[(String, String)]) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (n, v) in list {
        let name = HeaderName::from_bytes(n.as_bytes())
            .map_err(|_| format!("`{n}` is not a valid header name"))?;
        let value = HeaderValue::from_str(v)
            .map_err(|_| format!("the value of header `{n}` is not a valid header value"))?;
        map.append(name, value);
    }
    Ok(map)
}

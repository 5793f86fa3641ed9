//! The size limits the API server enforces before an object reaches etcd: the request body
//! (AS `pkg/server/config.go` `MaxRequestBodyBytes`, read by `limitedReadBody` in
//! `pkg/endpoints/handlers/rest.go`), the annotations of any object (AM
//! `pkg/api/validation/objectmeta.go`) and the data of a ConfigMap or Secret (KK
//! `pkg/apis/core/validation`, `MaxSecretSize`). What passes them and is still too large for
//! etcd (`--max-request-bytes`, 1.5 MiB) comes back from etcd as `etcdserver: request is too
//! large`, which the API server passes on as a 500.

use super::meta::{self, ApiError, Resource};
use base64::Engine as _;
use serde_json::Value;

/// `MaxRequestBodyBytes`: 3 MiB, twice etcd's limit, since a JSON body shrinks once stored
/// as protobuf.
pub const MAX_REQUEST_BODY_BYTES: usize = 3 * 1024 * 1024;
/// `TotalAnnotationSizeLimitB`: keys and values of all annotations together.
pub const TOTAL_ANNOTATION_BYTES: usize = 256 * 1024;
/// `MaxSecretSize`, which bounds a ConfigMap's data too.
pub const MAX_DATA_BYTES: usize = 1024 * 1024;

/// A body over [`MAX_REQUEST_BODY_BYTES`] is refused before it is decoded (413). `body` is
/// the object as the client sends it: kubectl sends compact JSON.
pub fn check_body(body: &Value) -> Result<(), ApiError> {
    let bytes = serde_json::to_vec(body).map_or(0, |b| b.len());
    if bytes <= MAX_REQUEST_BODY_BYTES {
        return Ok(());
    }
    Err(ApiError {
        code: 413,
        reason: "RequestEntityTooLarge",
        message: format!("Request entity too large: limit is {MAX_REQUEST_BODY_BYTES}"),
    })
}

/// The validation errors of `obj`'s sizes, each as `field.Error` prints itself, in the order
/// the validators append them: metadata first, then the data.
pub fn size_errors(r: &Resource, obj: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    let annotations: usize = meta::at(obj, &["metadata", "annotations"])
        .and_then(Value::as_object)
        .map_or(0, |a| {
            a.iter()
                .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
                .sum()
        });
    if annotations > TOTAL_ANNOTATION_BYTES {
        errors.push(too_long("metadata.annotations", TOTAL_ANNOTATION_BYTES));
    }
    let text = |field: &str| sum_values(obj, field, |s| s.len());
    let binary = |field: &str| sum_values(obj, field, decoded_len);
    match r.kind {
        // ConfigMap's error names the whole object: a root path prints as `[]`.
        "ConfigMap" if text("data") + binary("binaryData") > MAX_DATA_BYTES => {
            errors.push(too_long("[]", MAX_DATA_BYTES));
        }
        "Secret" if binary("data") + text("stringData") > MAX_DATA_BYTES => {
            errors.push(too_long("data", MAX_DATA_BYTES));
        }
        _ => {}
    }
    errors
}

/// `field.TooLong`'s text.
fn too_long(field: &str, limit: usize) -> String {
    format!("{field}: Too long: may not be more than {limit} bytes")
}

/// The sizes of the string values of `obj[field]`, added up.
fn sum_values(obj: &Value, field: &str, size: impl Fn(&str) -> usize) -> usize {
    obj.get(field)
        .and_then(Value::as_object)
        .map_or(0, |m| m.values().filter_map(Value::as_str).map(&size).sum())
}

/// The bytes a base64 value holds (the JSON form of `[]byte`).
fn decoded_len(text: &str) -> usize {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_or(text.len(), |b| b.len())
}

/// Field errors as `errors.NewAggregate` prints them: one alone, several in brackets.
pub fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kube::meta::{CONFIGMAPS, PODS, SECRETS};
    use serde_json::json;

    #[test]
    fn a_body_just_over_3_mib_is_refused_and_one_at_the_limit_is_not() {
        // `{"v":"…"}` is 8 bytes around the value.
        let at_limit = json!({ "v": "x".repeat(MAX_REQUEST_BODY_BYTES - 8) });
        assert_eq!(check_body(&at_limit), Ok(()));
        let over = json!({ "v": "x".repeat(MAX_REQUEST_BODY_BYTES - 7) });
        let e = check_body(&over).expect_err("over the limit");
        assert_eq!(
            e.to_string(),
            "Error from server (RequestEntityTooLarge): Request entity too large: limit is 3145728"
        );
        assert_eq!(e.code, 413);
    }

    #[test]
    fn annotations_and_data_are_measured_as_the_validators_measure_them() {
        let big = "x".repeat(MAX_DATA_BYTES);
        let cm = json!({"metadata": {"annotations": {"a": "x".repeat(TOTAL_ANNOTATION_BYTES - 1)}},
            "data": {"k": big}});
        assert_eq!(size_errors(&CONFIGMAPS, &cm), Vec::<String>::new());
        let cm = json!({"metadata": {"annotations": {"a": "x".repeat(TOTAL_ANNOTATION_BYTES)}},
            "data": {"k": big, "l": "y"}});
        let errors = size_errors(&CONFIGMAPS, &cm);
        assert_eq!(
            aggregate(&errors),
            "[metadata.annotations: Too long: may not be more than 262144 bytes, []: Too long: may not be more than 1048576 bytes]"
        );
        // A Secret's data is base64: 1 MiB of bytes is 4/3 as much text, and fits.
        let secret = base64::engine::general_purpose::STANDARD.encode(&big);
        assert!(size_errors(&SECRETS, &json!({"data": {"k": secret}})).is_empty());
        let over = base64::engine::general_purpose::STANDARD.encode(format!("{big}!"));
        assert_eq!(
            size_errors(&SECRETS, &json!({"data": {"k": over}})),
            ["data: Too long: may not be more than 1048576 bytes"]
        );
        // Only ConfigMaps and Secrets bound their data.
        assert!(size_errors(&PODS, &json!({"data": {"k": format!("{big}!")}})).is_empty());
    }
}

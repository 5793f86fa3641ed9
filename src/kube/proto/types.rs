//! The types of the generated protobuf schema (`schema.rs`): what the generator writes and the
//! codec reads, in a module of their own so the dependency runs one way (codec and table to
//! these types, codec to the table).

/// One Go struct: its name (for error messages) and its fields in field-number order.
pub(super) struct Message {
    pub(super) name: &'static str,
    pub(super) fields: &'static [Field],
}

/// One struct field: JSON name (empty for an embedded struct inlined in JSON), protobuf number,
/// element type, flags, and its Go type name when the codec cannot derive it from `ty`
/// (`GO_TYPES[go - 1]`; 0: derived).
pub(super) struct Field {
    pub(super) json: &'static str,
    pub(super) num: u16,
    pub(super) ty: Ty,
    pub(super) flags: u8,
    pub(super) go: u8,
}

/// What one value of a field is. The special types carry their own JSON and protobuf forms.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ty {
    Str,
    Bool,
    I32,
    I64,
    /// `[]byte`: base64 in JSON.
    Bytes,
    /// `metav1.Time`: {seconds, nanos} on the wire, RFC 3339 seconds in JSON, zero is null.
    Time,
    /// `metav1.MicroTime`: the same with microseconds.
    MicroTime,
    /// `resource.Quantity`: {string} on the wire, the canonical string in JSON.
    Quantity,
    /// `intstr.IntOrString`: {type, intVal, strVal} on the wire, a number or string in JSON.
    IntOrString,
    /// `runtime.RawExtension`, `metav1.FieldsV1`: {raw} on the wire, the raw JSON itself.
    RawJson,
    /// A struct: index in `MESSAGES`.
    Msg(u16),
}

pub(super) const OMITEMPTY: u8 = 1;
/// `omitzero`: only on `metav1.Time`, omitted when zero.
pub(super) const OMITZERO: u8 = 2;
/// A Go pointer: written only when set, printed even when zero.
pub(super) const PTR: u8 = 4;
/// A slice (not `[]byte`): one protobuf field per element.
pub(super) const REPEATED: u8 = 8;
/// A `map[string]T`: one entry message {key = 1, value = 2} per key, in key order.
pub(super) const MAP: u8 = 16;
/// An embedded struct: its own protobuf field, but its fields are the parent's in JSON.
pub(super) const INLINE: u8 = 32;

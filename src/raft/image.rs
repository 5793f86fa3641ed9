//! A snapshot's state-machine image (§7), opaque to Raft: bytes, or the driver's own
//! structure, shared by every copy and turned into bytes only when bytes are asked for.
//!
//! A driver whose state machine is persistent hands over a copy of it that costs little and
//! shares its data with the live state (an image as bytes was, for an hour-long etcd store,
//! megabytes of JSON per snapshot, encoded on the spot and kept by every time-travel
//! checkpoint taken since).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// What a driver puts in a snapshot besides bytes: something that can become them.
pub trait Image: Any + fmt::Debug + Send + Sync {
    fn to_bytes(&self) -> Vec<u8>;
}

/// Plain bytes, as a snapshot message from elsewhere (a trace file, a test) carries them.
#[derive(Debug, Default)]
struct Bytes(Vec<u8>);

impl Image for Bytes {
    fn to_bytes(&self) -> Vec<u8> {
        self.0.clone()
    }
}

/// A state-machine image. Clones share it; equality is equality of the bytes.
#[derive(Clone)]
pub struct SnapshotData(Arc<dyn Image>);

impl SnapshotData {
    pub fn of(image: impl Image) -> SnapshotData {
        SnapshotData(Arc::new(image))
    }

    /// The driver's own image, if this is one of type `T` (and not bytes).
    pub fn downcast_ref<T: Image>(&self) -> Option<&T> {
        let image: &dyn Any = self.0.as_ref();
        image.downcast_ref()
    }

    pub fn to_bytes(&self) -> Cow<'_, [u8]> {
        match self.downcast_ref::<Bytes>() {
            Some(bytes) => Cow::Borrowed(&bytes.0),
            None => Cow::Owned(self.0.to_bytes()),
        }
    }
}

impl From<Vec<u8>> for SnapshotData {
    fn from(bytes: Vec<u8>) -> SnapshotData {
        SnapshotData::of(Bytes(bytes))
    }
}

impl Default for SnapshotData {
    fn default() -> SnapshotData {
        SnapshotData::from(Vec::new())
    }
}

impl fmt::Debug for SnapshotData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for SnapshotData {
    fn eq(&self, other: &SnapshotData) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.to_bytes() == other.to_bytes()
    }
}

impl Eq for SnapshotData {}

/// As the bytes (what a snapshot message carried when its data was `Arc<[u8]>`).
impl Serialize for SnapshotData {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_bytes().as_ref().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SnapshotData {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SnapshotData, D::Error> {
        Vec::<u8>::deserialize(deserializer).map(SnapshotData::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Counter(u32);

    impl Image for Counter {
        fn to_bytes(&self) -> Vec<u8> {
            self.0.to_string().into_bytes()
        }
    }

    #[test]
    fn an_image_is_its_bytes_to_everyone_but_its_driver() {
        let image = SnapshotData::of(Counter(42));
        let bytes = SnapshotData::from(b"42".to_vec());
        assert_eq!(image, bytes);
        assert_ne!(image, SnapshotData::from(b"43".to_vec()));
        assert_eq!(image.downcast_ref::<Counter>().map(|c| c.0), Some(42));
        assert!(bytes.downcast_ref::<Counter>().is_none());
        assert_eq!(&*bytes.to_bytes(), b"42");
        let json = serde_json::to_string(&image).unwrap();
        assert_eq!(json, serde_json::to_string(&b"42".to_vec()).unwrap());
        let back: SnapshotData = serde_json::from_str(&json).unwrap();
        assert_eq!(back, image);
        assert!(
            back.downcast_ref::<Counter>().is_none(),
            "bytes, until decoded"
        );
    }
}

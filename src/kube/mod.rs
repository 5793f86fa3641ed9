//! The mock Kubernetes control plane on top of etcd. Filled by the Kubernetes issue.

//! The Extism kernel (`extism:host/env`) and mcpwasm's host functions
//! (`extism:host/user`), declared here so the crate needs no `extism-pdk`.
//!
//! On `wasm32` these are the real imports. On any other target they are an
//! in-process stand-in (see [`crate::testing`]) so that plugins and the SDK
//! can be unit-tested with a plain `cargo test`.

/// The mcpwasm host functions a guest may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostFn {
    NotifyProgress,
    NotifyLoggingMessage,
}

impl HostFn {
    #[allow(dead_code)] // used by `testing` only
    pub fn name(self) -> &'static str {
        match self {
            HostFn::NotifyProgress => "notify_progress",
            HostFn::NotifyLoggingMessage => "notify_logging_message",
        }
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::HostFn;

    #[link(wasm_import_module = "extism:host/env")]
    extern "C" {
        fn input_length() -> u64;
        fn input_load_u8(offs: u64) -> u8;
        fn input_load_u64(offs: u64) -> u64;
        fn length(offs: u64) -> u64;
        fn alloc(len: u64) -> u64;
        fn free(offs: u64);
        fn output_set(offs: u64, len: u64);
        fn error_set(offs: u64);
        fn config_get(key: u64) -> u64;
        fn store_u8(offs: u64, v: u8);
        fn load_u8(offs: u64) -> u8;
        fn store_u64(offs: u64, v: u64);
        fn load_u64(offs: u64) -> u64;
    }

    #[link(wasm_import_module = "extism:host/user")]
    extern "C" {
        fn notify_progress(handle: u64);
        fn notify_logging_message(handle: u64);
    }

    /// The call's input, read 8 bytes per host call.
    pub fn input() -> Vec<u8> {
        unsafe {
            let n = input_length() as usize;
            let mut v = vec![0u8; n];
            let mut i = 0;
            while i + 8 <= n {
                v[i..i + 8].copy_from_slice(&input_load_u64(i as u64).to_le_bytes());
                i += 8;
            }
            while i < n {
                v[i] = input_load_u8(i as u64);
                i += 1;
            }
            v
        }
    }

    /// Copies `data` into a new kernel block and returns its handle.
    fn to_kernel(data: &[u8]) -> u64 {
        unsafe {
            let offs = alloc(data.len() as u64);
            if offs == 0 && !data.is_empty() {
                panic!("mcpwasm: the Extism kernel could not allocate {} bytes", data.len());
            }
            let mut chunks = data.chunks_exact(8);
            let mut at = offs;
            for c in &mut chunks {
                let mut w = [0u8; 8];
                w.copy_from_slice(c);
                store_u64(at, u64::from_le_bytes(w));
                at += 8;
            }
            for &b in chunks.remainder() {
                store_u8(at, b);
                at += 1;
            }
            offs
        }
    }

    /// Reads a kernel block the guest owns, then frees it.
    fn take_kernel(offs: u64) -> Vec<u8> {
        unsafe {
            let n = length(offs) as usize;
            let mut v = vec![0u8; n];
            let mut i = 0;
            while i + 8 <= n {
                v[i..i + 8].copy_from_slice(&load_u64(offs + i as u64).to_le_bytes());
                i += 8;
            }
            while i < n {
                v[i] = load_u8(offs + i as u64);
                i += 1;
            }
            free(offs);
            v
        }
    }

    pub fn output(data: &[u8]) {
        let h = to_kernel(data);
        unsafe { output_set(h, data.len() as u64) }
    }

    pub fn set_error(msg: &str) {
        let h = to_kernel(msg.as_bytes());
        unsafe { error_set(h) }
    }

    pub fn config(key: &str) -> Option<Vec<u8>> {
        let k = to_kernel(key.as_bytes());
        let h = unsafe { config_get(k) };
        unsafe { free(k) };
        if h == 0 {
            None
        } else {
            Some(take_kernel(h))
        }
    }

    /// Hands `payload` to a host function; the block becomes the host's.
    pub fn call_host(f: HostFn, payload: &[u8]) {
        let h = to_kernel(payload);
        unsafe {
            match f {
                HostFn::NotifyProgress => notify_progress(h),
                HostFn::NotifyLoggingMessage => notify_logging_message(h),
            }
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod imp {
    use super::HostFn;
    use std::cell::RefCell;

    /// What a host would have seen: set by tests, read back after a call.
    #[derive(Default)]
    pub struct Mock {
        pub input: Vec<u8>,
        pub output: Option<Vec<u8>>,
        pub error: Option<String>,
        pub config: Vec<(String, String)>,
        /// Host-function calls in order: the function's name and its payload
        /// (empty for functions without one).
        pub host_calls: Vec<(&'static str, Vec<u8>)>,
        /// What `create_message`, `create_elicitation` and `list_roots`
        /// answer, by function name (the last entry for a name wins).
        pub answers: Vec<(String, Vec<u8>)>,
    }

    thread_local! {
        pub static MOCK: RefCell<Mock> = RefCell::new(Mock::default());
    }

    pub fn input() -> Vec<u8> {
        MOCK.with(|m| m.borrow().input.clone())
    }
    pub fn output(data: &[u8]) {
        MOCK.with(|m| m.borrow_mut().output = Some(data.to_vec()))
    }
    pub fn set_error(msg: &str) {
        MOCK.with(|m| m.borrow_mut().error = Some(msg.to_string()))
    }
    pub fn config(key: &str) -> Option<Vec<u8>> {
        MOCK.with(|m| m.borrow().config.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_bytes().to_vec()))
    }
    pub fn call_host(f: HostFn, payload: &[u8]) {
        host_notify(f.name(), payload)
    }
    /// A host function without an answer (`notify_*`).
    pub fn host_notify(function: &'static str, payload: &[u8]) {
        MOCK.with(|m| m.borrow_mut().host_calls.push((function, payload.to_vec())))
    }
    /// A host function with an answer: the one set with
    /// `testing::answer`, else the error a host without a client gives.
    pub fn host_request(function: &'static str, payload: &[u8]) -> Vec<u8> {
        MOCK.with(|m| {
            let mut m = m.borrow_mut();
            m.host_calls.push((function, payload.to_vec()));
            match m.answers.iter().rev().find(|(f, _)| f == function) {
                Some((_, a)) => a.clone(),
                None => format!(
                    r#"{{"error":{{"message":"no answer for {} (set one with mcpwasm::testing::answer)"}}}}"#,
                    function
                )
                .into_bytes(),
            }
        })
    }
}

pub(crate) use imp::*;

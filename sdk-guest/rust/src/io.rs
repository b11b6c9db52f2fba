//! Kernel I/O for the exports and host functions added after tools
//! (resources, prompts, completion, client requests).
//!
//! On wasm these talk to the Extism kernel directly rather than through
//! `crate::kernel`, and every function is `#[inline]`: the code is then
//! compiled only into plugins that use it, and the code generated for tools
//! stays as it was (a tools-only plugin builds to the same bytes as before
//! these features existed). A panic here has no SDK hook: Rust's own message
//! on stderr still lets the host classify it as a panic.
//!
//! Off wasm, the same functions reach the in-process stand-in of
//! `crate::kernel` (see [`crate::testing`]).

#[cfg(target_arch = "wasm32")]
mod imp {
    #[link(wasm_import_module = "extism:host/env")]
    extern "C" {
        fn input_length() -> u64;
        fn input_load_u8(offs: u64) -> u8;
        fn input_load_u64(offs: u64) -> u64;
        fn alloc(len: u64) -> u64;
        fn free(offs: u64);
        fn length(offs: u64) -> u64;
        fn store_u8(offs: u64, v: u8);
        fn store_u64(offs: u64, v: u64);
        fn load_u8(offs: u64) -> u8;
        fn load_u64(offs: u64) -> u64;
        fn output_set(offs: u64, len: u64);
        fn error_set(offs: u64);
    }

    /// The input, 8 bytes per kernel call, then the tail byte by byte.
    #[inline]
    pub fn input() -> Vec<u8> {
        let n = unsafe { input_length() } as usize;
        let mut v = Vec::with_capacity(n);
        while v.len() + 8 <= n {
            v.extend_from_slice(&unsafe { input_load_u64(v.len() as u64) }.to_le_bytes());
        }
        while v.len() < n {
            v.push(unsafe { input_load_u8(v.len() as u64) });
        }
        v
    }

    /// Copies `data` into a new kernel block and returns its handle.
    #[inline]
    pub fn to_kernel(data: &[u8]) -> u64 {
        let offs = unsafe { alloc(data.len() as u64) };
        if offs == 0 && !data.is_empty() {
            panic!("mcpwasm: the Extism kernel could not allocate {} bytes", data.len());
        }
        let mut chunks = data.chunks_exact(8);
        let mut at = offs;
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            unsafe { store_u64(at, u64::from_le_bytes(w)) };
            at += 8;
        }
        for &b in chunks.remainder() {
            unsafe { store_u8(at, b) };
            at += 1;
        }
        offs
    }

    /// Reads a kernel block the guest owns (a host function's answer), then
    /// frees it. Handle 0 (the host could not allocate one) reads as empty.
    #[inline]
    pub fn take_kernel(handle: u64) -> Vec<u8> {
        if handle == 0 {
            return Vec::new();
        }
        let n = unsafe { length(handle) } as usize;
        let mut v = Vec::with_capacity(n);
        while v.len() + 8 <= n {
            v.extend_from_slice(&unsafe { load_u64(handle + v.len() as u64) }.to_le_bytes());
        }
        while v.len() < n {
            v.push(unsafe { load_u8(handle + v.len() as u64) });
        }
        unsafe { free(handle) };
        v
    }

    #[inline]
    pub fn output(data: &[u8]) {
        unsafe { output_set(to_kernel(data), data.len() as u64) }
    }

    #[inline]
    pub fn set_error(message: &str) {
        unsafe { error_set(to_kernel(message.as_bytes())) }
    }
}

#[cfg(target_arch = "wasm32")]
pub(crate) use imp::*;

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use crate::kernel::imp::{host_notify, host_request, input, output, set_error};

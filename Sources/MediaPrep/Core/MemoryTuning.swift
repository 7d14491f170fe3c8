/// glibc's allocator hands every buffer over 128 KB–32 MB back to the kernel when it is freed, so
/// the next one is a fresh mapping the kernel must fault in and zero page by page; an image's
/// pipeline frees and allocates such buffers dozens of times (decodes, planes, candidates,
/// encoder output). Keeping them for reuse measured 2314 → 2171 ms over the hard corpus and
/// 2430 → 2375 ms over the easy one (min of 5 per image, same binary, MALLOC_*_ environment).
package enum MemoryTuning {
    /// For a process that prepares images: allocations up to 32 MB (glibc's maximum threshold) come
    /// from the heap, and freed heap memory is kept up to 512 MB. Peak memory is unchanged; what is
    /// freed is reused instead of returned.
    package static func keepFreedBuffers() {
        _ = glibcMallopt(-3, 32 << 20)  // M_MMAP_THRESHOLD
        _ = glibcMallopt(-1, 512 << 20)  // M_TRIM_THRESHOLD
    }

    /// Hands what is free back to the kernel: after a video pass, whose frames and x264's buffers the
    /// heap would otherwise keep beneath the next pass's own (6 s 1080p clip in two passes at 1080p:
    /// peak 661 MB with the first pass's memory kept, 579 MB with it handed back).
    package static func returnFreedMemory() {
        _ = glibcMallocTrim(0)
    }
}

/// `int malloc_trim(size_t)` from <malloc.h>.
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32

/// `int mallopt(int, int)` from <malloc.h>, which the Glibc module does not export.
@_silgen_name("mallopt")
private func glibcMallopt(_ param: Int32, _ value: Int32) -> Int32

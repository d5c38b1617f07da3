import WebImageCodecs

/// WebP decode (still and animated): full size, thumbnail and first frame with a byte budget.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzDecode(WebPCoder(), UnsafeRawBufferPointer(start: bytes, count: count), formats: [.webp])
    return 0
}

import WebImageCodecs

/// GIF decode: full size, thumbnail and first frame with a byte budget.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzDecode(GIFCoder(), UnsafeRawBufferPointer(start: bytes, count: count), formats: [.gif])
    return 0
}

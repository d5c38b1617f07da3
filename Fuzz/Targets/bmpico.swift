import Foundation
import WebImageCodecs

/// BMP and ICO/CUR decode (the header and directory checks, gdk-pixbuf's BMP and ICO loaders,
/// PNG entries): the first input byte picks the coder, so one corpus serves both. Full size,
/// thumbnail (entry choice) and a byte budget; the header readers must never trap either.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBMPICO(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard count > 0, let bytes else { return 0 }
    let input = UnsafeRawBufferPointer(start: bytes + 1, count: count - 1)
    let coder: any ImageCoding = bytes[0] & 1 == 0 ? BMPCoder() : ICOCoder()
    let format: ImageFormat = bytes[0] & 1 == 0 ? .bmp : .ico
    fuzzDecode(coder, input, formats: [format])
    fuzzHeader(coder, input, formats: [format])
    return 0
}

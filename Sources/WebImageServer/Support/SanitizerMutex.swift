#if WEBIMAGE_TSAN
import WebImageCodecs

/// Under `make tsan`, the server locks with the library's pthread-backed stand-in, which
/// ThreadSanitizer can see (docs/RELIABILITY.md); this module's alias shadows `Synchronization.Mutex`.
typealias Mutex<Value: ~Copyable> = WebImageCodecs.Mutex<Value>
#endif

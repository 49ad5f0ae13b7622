// zlib, for the raw DEFLATE stream of a Core Data store's model cache (Z_MODELCACHE).
#include <zlib.h>

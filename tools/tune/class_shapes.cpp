#include "class_shapes.h"

namespace aegis::tune {

const std::vector<std::pair<aegisShapeClass_t, std::vector<Shape>>>& class_shapes() {
  static const std::vector<std::pair<aegisShapeClass_t, std::vector<Shape>>> shapes = {
      {AEGIS_SHAPE_SMALL,
       {{64, 64, 256}, {128, 128, 128}, {160, 160, 256}, {256, 256, 256}, {384, 384, 256}}},
      {AEGIS_SHAPE_MEDIUM,
       {{1024, 1024, 1024}, {4096, 4096, 128}, {1536, 1536, 512}, {2048, 2048, 256},
        {1024, 1024, 4096}}},
      {AEGIS_SHAPE_LARGE,
       {{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 1024}, {3000, 3000, 3000}}},
      {AEGIS_SHAPE_HUGE, {{8192, 8192, 8192}, {16384, 16384, 1024}, {16384, 16384, 16384}}},
      {AEGIS_SHAPE_TALL,
       {{4096, 128, 4096}, {65536, 128, 128}, {16384, 512, 1024}, {8192, 1024, 512}}},
      {AEGIS_SHAPE_WIDE,
       {{128, 4096, 4096}, {128, 65536, 128}, {512, 16384, 1024}, {1024, 8192, 512}}},
  };
  return shapes;
}

}  // namespace aegis::tune

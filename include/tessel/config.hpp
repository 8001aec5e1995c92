#pragma once
// Portability macros for code that compiles both as CUDA and as plain C++. They are defined once,
// with the layout algebra (which includes nothing of tessel outside its folder).

#include "tessel/layout/config.hpp"

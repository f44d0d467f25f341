// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// A whole file into a buffer, with the error a read gives as a value
// (read_all.cpp): std::istreambuf_iterator over an ifstream throws
// std::ios_base::failure when a read fails (a directory, a /proc file
// whose process was reaped between the open and the read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tools {

// The contents of @path into @out (replaced): 0, or the errno of the open
// or the read that failed (EFBIG past @max bytes). @out keeps what was
// read before a failure.
int read_all(const std::string &path, std::string &out, size_t max = SIZE_MAX);
int read_all(const std::string &path, std::vector<uint8_t> &out, size_t max = SIZE_MAX);

} // namespace tools

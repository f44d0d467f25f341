/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Checked opaque handles for the application API. A handle is not an
// address: it is (serial << 4 | kind), issued once and never again, so a
// freed handle, a handle of another kind or a made-up pointer is found
// missing instead of being dereferenced (NRT_INVALID_HANDLE).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "lock.hpp"

namespace nrt::handles {

enum class kind : uintptr_t { model = 1, tensor = 2, tensor_set = 3, error_tracker = 4 };

template <typename T, kind K>
class table {
public:
	// A new handle for @obj; 0 when the handle space or memory ran out.
	uintptr_t issue(std::shared_ptr<T> obj) noexcept
	{
		std::lock_guard g(lock_);
		if (next_ >= (UINTPTR_MAX >> 4))
			return 0;
		uintptr_t h = (next_ << 4) | static_cast<uintptr_t>(K);
		try {
			objs_.emplace(h, std::move(obj));
		} catch (...) {
			return 0;
		}
		next_++;
		return h;
	}

	// The object behind @p, or nullptr. In the model table the handle
	// found last is kept apart, so that a loop over one model (nrt_execute)
	// takes no hash look-up; the other tables alternate between
	// handles on every execution (input set, output set, each tensor), so
	// they keep none.
	[[gnu::always_inline]] std::shared_ptr<T> find(const void *p) const noexcept
	{
		uintptr_t h = reinterpret_cast<uintptr_t>(p);
		if ((h & 0xf) != static_cast<uintptr_t>(K))
			return nullptr;
		std::lock_guard g(lock_);
		if (keeps_last && h == last_h_)
			return last_obj_;
		return find_locked(h);
	}

	// Remove the handle; the object lives on while someone holds it.
	std::shared_ptr<T> take(const void *p) noexcept
	{
		uintptr_t h = reinterpret_cast<uintptr_t>(p);
		std::lock_guard g(lock_);
		auto it = objs_.find(h);
		if (it == objs_.end())
			return nullptr;
		if (h == last_h_)
			forget_last();
		auto obj = std::move(it->second);
		objs_.erase(it);
		return obj;
	}

	// Remove every handle (nrt_close()); the objects are returned.
	std::vector<std::shared_ptr<T>> take_all()
	{
		std::vector<std::shared_ptr<T>> v;
		std::lock_guard g(lock_);
		v.reserve(objs_.size());
		for (auto &[h, o] : objs_)
			v.push_back(std::move(o));
		objs_.clear();
		forget_last();
		return v;
	}

	template <typename F> void for_each(F f) const
	{
		std::lock_guard g(lock_);
		for (const auto &[h, o] : objs_)
			f(h, o);
	}

private:
	// find()'s hash look-up, under lock_
	[[gnu::noinline]] std::shared_ptr<T> find_locked(uintptr_t h) const noexcept
	{
		auto it = objs_.find(h);
		if (it == objs_.end())
			return nullptr;
		if (keeps_last) {
			last_h_ = h;
			last_obj_ = it->second;
		}
		return it->second;
	}

	void forget_last() const noexcept
	{
		last_h_ = 0;
		last_obj_.reset();
	}

	static constexpr bool keeps_last = K == kind::model;

	mutable nrt::mutex lock_;	// protects everything below
	std::unordered_map<uintptr_t, std::shared_ptr<T>> objs_;
	uintptr_t next_ = 1;
	// the handle find() found last (0: none) and its object, while it is
	// in objs_: a copy, so that no one holds an object longer for it
	mutable uintptr_t last_h_ = 0;
	mutable std::shared_ptr<T> last_obj_;
};

} // namespace nrt::handles

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// C ABI of the error-notification decode chain.
#include <nrt/nrt_error_model.h>
#include <neuron/neuron_nq.h>

#include <cstdlib>

#include "decode.hpp"
#include "export.hpp"

using namespace nrt;

NRT_EXPORT nrt_decode_config_t nrt_decode_config_parse(const char *fail_on_nan,
						       const char *verbosity)
{
	nrt_decode_config_t cfg{};
	cfg.numerical_armed = decode::numerical_armed(fail_on_nan, verbosity);
	return cfg;
}

NRT_EXPORT nrt_decode_config_t nrt_decode_config_from_env(void)
{
	return nrt_decode_config_parse(std::getenv("NEURON_FAIL_ON_NAN"),
				       std::getenv("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY"));
}

NRT_EXPORT int nrt_decode_tpb_subtype(uint32_t tpb_type)
{
	if (tpb_type >= decode::tpb_subtype.size())
		return -1;
	return decode::tpb_subtype[tpb_type];
}

NRT_EXPORT bool nrt_decode_hw_error(uint32_t hw_error, NRT_STATUS *status)
{
	if (!decode::hw_error_valid(hw_error))
		return false;
	if (status)
		*status = decode::hw_status[hw_error];
	return true;
}

NRT_EXPORT void nrt_infer_errors_clear(nrt_infer_errors_t *errs)
{
	if (errs)
		*errs = nrt_infer_errors_t{};
}

NRT_EXPORT int nrt_infer_errors_add_tpb(nrt_infer_errors_t *errs, uint32_t tpb_type)
{
	return errs ? decode::add_tpb(*errs, tpb_type) : -1;
}

NRT_EXPORT int nrt_infer_errors_add_hw(nrt_infer_errors_t *errs, uint32_t hw_error)
{
	return errs ? decode::add_hw(*errs, hw_error) : -1;
}

NRT_EXPORT void nrt_infer_errors_add_overflow(nrt_infer_errors_t *errs)
{
	if (errs)
		errs->nq_overflow = 1;
}

NRT_EXPORT int nrt_decode_nq_entry(nrt_infer_errors_t *errs, const struct neuron_nq_entry *entry)
{
	if (!errs)
		return -1;
	if (!entry) {
		decode::bump(errs->malformed);
		return -1;
	}
	return decode::add_entry(*errs, entry->header, entry->error_id);
}

NRT_EXPORT NRT_STATUS nrt_infer_errors_status(const nrt_infer_errors_t *errs,
					      const nrt_decode_config_t *cfg)
{
	if (!errs)
		return NRT_SUCCESS;
	return decode::collapse(*errs, cfg && cfg->numerical_armed);
}

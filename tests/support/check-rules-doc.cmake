# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# docs/rules.md must equal what `wire_rules` prints from the rule table.
execute_process(COMMAND ${GEN} OUTPUT_VARIABLE want RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "wire_rules failed")
endif()
file(READ ${DOC} have)
if(NOT want STREQUAL have)
	message(FATAL_ERROR "docs/rules.md is stale: regenerate with build/<preset>/examples/wire_rules > docs/rules.md")
endif()

# Turns schema/schema.sql and schema/views.sql into C strings so the binary carries the one
# source of the database layout (docs/database.md, schema/).
function(embed var path out)
  file(READ ${path} text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n\"\n\"" text "${text}")
  set(${out} "const char ${var}[] =\n\"${text}\";\n" PARENT_SCOPE)
endfunction()
embed(farm_schema_sql ${SCHEMA} a)
embed(farm_views_sql ${VIEWS} b)
file(WRITE ${OUT} "/* Generated from schema/schema.sql and schema/views.sql by cmake/embed.cmake; do not edit. */\n${a}\n${b}")

// Copyright spate authors.
#pragma once

// The umbrella header of spate's public C++ API.
//
//   #include <spate/spate.h>
// The API mirrors pyspark.sql and lives in namespace spate::api (spate::Column is the
// engine's columnar array):
//   using namespace spate::api;
//   namespace F = spate::api::functions;
//   auto spark = SparkSession::builder().appName("app").getOrCreate();
//   spark.sql("SELECT id % 3 AS k, count(*) FROM range(10) GROUP BY k").show();

#include "spate/api/column.h"
#include "spate/api/dataframe.h"
#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"

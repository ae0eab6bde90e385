"""scikit-learn adapters: markone's estimators as scikit-learn classifiers.

This is the only module of markone that imports scikit-learn (install it with
``pip install scikit-learn``, or the ``test`` extra). Each adapter *is* the markone
estimator (a subclass, so fitting and prediction run the same code) with
scikit-learn's input validation, ``get_params``/``set_params``/``clone``, tags and
``score`` mixed in; all three pass scikit-learn's ``check_estimator`` suite.

* :class:`PerceptronClassifier`: :class:`markone.Perceptron` (two classes);
* :class:`MulticlassPerceptronClassifier`: :class:`markone.MulticlassPerceptron`;
* :class:`KernelPerceptronClassifier`: :class:`markone.KernelPerceptron` (two classes).

Examples
--------
>>> import warnings
>>> from sklearn.model_selection import cross_val_score
>>> from sklearn.pipeline import make_pipeline
>>> from sklearn.preprocessing import StandardScaler
>>> from markone import datasets
>>> from markone.sklearn import MulticlassPerceptronClassifier
>>> X, y = datasets.iris()
>>> clf = make_pipeline(StandardScaler(), MulticlassPerceptronClassifier(
...     max_epochs=50, variant="averaged", order="shuffle", seed=0))
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")   # iris is not separable: no clean pass
...     scores = cross_val_score(clf, X, y, cv=5)
>>> scores.round(2).tolist()
[1.0, 1.0, 0.93, 0.93, 0.97]
"""

from __future__ import annotations

from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from markone.kernel import KernelPerceptron
from markone.multiclass import MulticlassPerceptron
from markone.perceptron import Perceptron

__all__ = ["PerceptronClassifier", "MulticlassPerceptronClassifier",
           "KernelPerceptronClassifier"]


class _Adapter(ClassifierMixin, BaseEstimator):
    """scikit-learn validation and tags in front of a markone estimator (mixed in
    before it, so ``super()`` calls reach the markone methods)."""

    _binary_only = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = not self._binary_only
        return tags

    def _checked_xy(self, X, y, reset):
        X, y = validate_data(self, X, y, reset=reset)
        check_classification_targets(y)
        if self._binary_only:
            kind = type_of_target(y, input_name="y", raise_unknown=True)
            if kind != "binary":
                raise ValueError(
                    f"Only binary classification is supported. The type of the target "
                    f"is {kind}; use MulticlassPerceptronClassifier for more classes.")
        return X, y

    def fit(self, X, y):
        """Validate with scikit-learn, then fit the markone estimator; return ``self``."""
        X, y = self._checked_xy(X, y, reset=True)
        return super().fit(X, y)

    def partial_fit(self, X, y, classes=None):
        """One pass from the current state (``classes`` the first time)."""
        X, y = self._checked_xy(X, y, reset=not hasattr(self, "classes_"))
        return super().partial_fit(X, y, classes=classes)

    def decision_function(self, X):
        """Scores of the markone estimator, after scikit-learn's checks."""
        check_is_fitted(self)
        return super().decision_function(validate_data(self, X, reset=False))

    def predict(self, X):
        """Predicted classes, after scikit-learn's checks."""
        check_is_fitted(self)
        return super().predict(validate_data(self, X, reset=False))


class PerceptronClassifier(_Adapter, Perceptron):
    """:class:`markone.Perceptron` as a scikit-learn classifier (two classes).

    Examples
    --------
    >>> from markone.sklearn import PerceptronClassifier
    >>> clf = PerceptronClassifier().fit([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1])
    >>> clf.predict([[1, 1]]).tolist(), clf.coef_.tolist(), clf.intercept_.tolist()
    ([1], [[3.0, 2.0]], [-4.0])
    """

    _binary_only = True


class MulticlassPerceptronClassifier(_Adapter, MulticlassPerceptron):
    """:class:`markone.MulticlassPerceptron` as a scikit-learn classifier.

    Examples
    --------
    >>> from markone.sklearn import MulticlassPerceptronClassifier
    >>> clf = MulticlassPerceptronClassifier(intercept=False)
    >>> clf.fit([[1, 0], [0, 1], [-1, -1]], [0, 1, 2]).predict([[-2, -1]]).tolist()
    [2]
    """


class KernelPerceptronClassifier(_Adapter, KernelPerceptron):
    """:class:`markone.KernelPerceptron` as a scikit-learn classifier (two classes).

    Examples
    --------
    >>> from markone import datasets
    >>> from markone.sklearn import KernelPerceptronClassifier
    >>> X, y = datasets.xor()
    >>> KernelPerceptronClassifier(kernel="poly", degree=2).fit(X, y).score(X, y)
    1.0
    """

    _binary_only = True
